//! Standard output and standard error that end quietly when their reader goes away.
//!
//! `lab list | head -1` closes the pipe after one line, and std's `print!` family panics on the next write
//! ("failed printing to stdout: Broken pipe", exit 101, a backtrace with `RUST_BACKTRACE`). The macros below
//! shadow `print!`, `println!`, `eprint!` and `eprintln!` for the whole crate (`main.rs` declares this module
//! first, with `#[macro_use]`), so every line the lab prints, whoever adds it, goes through [`out`] or [`err`]:
//!
//! - A reader that went away (`BrokenPipe`) is not an error of the lab: what is left to print on that stream is
//!   dropped, silently, and the command carries on to its end and exits with the status it would have had.
//! - Any other failure to write standard output (a full disk it was redirected to) is said once on standard
//!   error, and the rest of standard output is dropped likewise.
//! - Standard error that cannot be written is dropped: there is nowhere left to say so.
//!
//! Why not restore SIGPIPE's default action, as C tools have it? The lab writes to pipes of its own besides its
//! output: each trial process's request goes down its standard input, and a trial that died first would then kill
//! the lab, silently, in the middle of a run. And the lab's exit status carries meaning that a pipe should not
//! erase: 1 for a failed contestant or a regression past `--fail-on`, 3 for output it could not write; `lab
//! compare … --fail-on 5 | head` must still fail a CI job, and a run whose reader left must still finish writing
//! its report.

use std::fmt::Arguments;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Standard output failed once: nothing more is written to it.
static OUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard error failed once: nothing more is written to it.
static ERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to standard output and flushes it; a failed write closes it for the rest of the process.
pub(crate) fn out(args: Arguments<'_>) {
    if OUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        OUT_CLOSED.store(true, Ordering::Relaxed);
        if e.kind() != io::ErrorKind::BrokenPipe {
            err(format_args!("warning: cannot write to standard output ({e}); the rest of it is dropped\n"));
        }
    }
}

/// Writes `args` to standard error; a failed write closes it for the rest of the process.
pub(crate) fn err(args: Arguments<'_>) {
    if ERR_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if io::stderr().lock().write_fmt(args).is_err() {
        ERR_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `print!`, through [`out`].
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::pipe::out(::std::format_args!($($arg)*))
    };
}

/// `println!`, through [`out`].
macro_rules! println {
    () => {
        $crate::pipe::out(::std::format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::pipe::out(::std::format_args!("{}\n", ::std::format_args!($($arg)*)))
    };
}

/// `eprint!`, through [`err`].
#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::pipe::err(::std::format_args!($($arg)*))
    };
}

/// `eprintln!`, through [`err`].
macro_rules! eprintln {
    () => {
        $crate::pipe::err(::std::format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::pipe::err(::std::format_args!("{}\n", ::std::format_args!($($arg)*)))
    };
}
