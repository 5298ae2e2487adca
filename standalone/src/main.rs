//! `standalone <program> --items N --capacity C --iterations K [--work W]`: one line `wall_ns cpu_ns` per
//! iteration on standard output; exit 1 with a message when an iteration's items are wrong, 2 on a bad command
//! line (see the library's documentation).

use std::process::ExitCode;

use standalone::args::USAGE;
use standalone::Args;

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(why) => {
            eprintln!("error: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match standalone::run(&args, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            ExitCode::FAILURE
        }
    }
}
