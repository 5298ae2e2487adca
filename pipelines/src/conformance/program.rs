//! A standalone program (the `standalone` crate's binary) as a contestant of an items scenario: the trial it runs
//! in place of the lab's trial process, and the checks it reports, named as the kit names them.

use measure::external::ExternalProgram;
use measure::record::TrialRequest;
use measure::summary::Check;
use standalone::Args;

use super::Declaration;

/// The standalone program running `args` for `request`'s trial, its warm-ups and measured iterations one after
/// another (whatever `args.iterations` says), reporting `checks` when it ends cleanly.
pub fn standalone_program(args: Args, request: &TrialRequest, checks: Vec<Check>) -> ExternalProgram {
    let args = Args { iterations: request.warmup + request.iterations, ..args };
    ExternalProgram {
        program: standalone::BINARY.to_string(),
        args: args.to_argv(),
        items: args.items,
        build: standalone::BUILD.to_string(),
        checks,
    }
}

/// The checks a standalone program of scenario `D` reports, in the kit's order ([`super::all`]): those it makes
/// itself (`made`: the check's name and detail) passed, every other not applicable, `why(name)` saying why.
pub fn program_checks<D: Declaration>(made: &[(&str, String)], why: impl Fn(&str) -> &'static str) -> Vec<Check> {
    let words = D::WORDS;
    let names = ["checksum", "exactly_once", "bounded_outstanding", "early_stop"].into_iter().chain([
        words.error_check,
        words.panic_check,
        "clean_after_faults",
        "caller_cancel",
    ]);
    names
        .map(|name| match made.iter().find(|(made, _)| *made == name) {
            Some((_, detail)) => Check::new(name, true, detail.clone()),
            None => Check::not_applicable(name, why(name)),
        })
        .collect()
}
