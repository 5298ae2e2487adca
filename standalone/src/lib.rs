//! The hand-off pairs and the chain's loop as the smallest standalone programs: what a person writes to time a
//! pair by hand, with no lab code in the process (no trial protocol, no sampler, no counting allocator, no
//! harness). The lab runs them as contestants of role `reference` beside the lab's own (`*-standalone`), each trial
//! a fresh process of this crate's binary, so that "lab ÷ standalone" calibrates the lab's harness the way the
//! in-process bare pairs calibrate the contestants' code.
//!
//! `standalone <program> --items N --capacity C --iterations K [--work W]` runs `program` ([`Program`]) `K` times
//! and prints one line per iteration on standard output, `wall_ns cpu_ns` ([`Sample`]), nothing else. Every
//! iteration is checked ([`check`]: every item, in order, summing to the reference); a wrong one stops the
//! program with a message on standard error and exit status 1; a bad command line exits 2.
//!
//! - [`args`]: the command line, parsed and written by the same type ([`Args`]), so the lab builds its argv from it;
//! - [`clock`]: wall and process CPU around one iteration;
//! - [`programs`]: the programs themselves, one function each.
#![warn(missing_docs)]

pub mod args;
pub mod clock;
pub mod programs;

use std::io::Write;

pub use args::{Args, Program};
pub use clock::Sample;

/// The binary's file name, next to the lab's own executable in the same target folder.
pub const BINARY: &str = "standalone";

/// The command that builds the binary with the benchmark's profile (the workspace's release profile).
pub const BUILD: &str = "cargo build --release -p standalone";

/// What the consumer of one iteration received: the wrapping sum, how many items, and the index of the first item
/// that was not the one expected there (for a hand-off, item `i` must be `i`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Received {
    /// Wrapping sum of every item received.
    pub sum: u64,
    /// Items received (0 from the loop, which sums without counting).
    pub count: u64,
    /// The first position whose item was not its index, if any.
    pub first_disorder: Option<u64>,
}

impl Received {
    /// Take one item of a hand-off: item number `count` must be `count`.
    #[inline(always)]
    pub fn push(&mut self, item: u64) {
        if item != self.count && self.first_disorder.is_none() {
            self.first_disorder = Some(self.count);
        }
        self.sum = self.sum.wrapping_add(item);
        self.count += 1;
    }
}

/// What one iteration must receive, computed once before any is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    /// The wrapping sum.
    pub sum: u64,
    /// How many items, for a program that counts them (a hand-off); `None` for the loop, which sums only, as the
    /// lab's `baseline-loop` does.
    pub count: Option<u64>,
}

impl Expected {
    /// A hand-off of `0..items`: `items` items summing to `items·(items−1)/2`, taken modulo 2⁶⁴ as the wrapping
    /// sum is.
    pub fn handoff(items: u64) -> Expected {
        let n = u128::from(items);
        Expected { sum: (n * n.saturating_sub(1) / 2) as u64, count: Some(items) }
    }

    /// The chain's loop over `0..items` at `work` mixing rounds, restated as a plain `while` loop (not calling
    /// [`programs::chain_loop`], so a mistake in either shows as a mismatch); the sum only.
    pub fn chain_loop(items: u64, work: u32) -> Expected {
        let (mut sum, mut i) = (0u64, 0u64);
        while i < items {
            let mut x = i.wrapping_mul(3).wrapping_add(1);
            let mut round = 0;
            while round < work {
                x = x.rotate_left(5).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x >> 29);
                round += 1;
            }
            if x & 1 == 0 {
                sum = sum.wrapping_add(x ^ (x >> 7));
            }
            i += 1;
        }
        Expected { sum, count: None }
    }
}

/// Whether `got` is exactly `expected`: every item in order and as many as expected (a hand-off), summing to the
/// reference. The error says what differed.
pub fn check(got: &Received, expected: &Expected) -> Result<(), String> {
    if let Some(at) = got.first_disorder {
        return Err(format!("item {at} arrived out of order"));
    }
    match expected.count {
        Some(count) if got.count != count => return Err(format!("received {} items, expected {count}", got.count)),
        _ => {}
    }
    if got.sum != expected.sum {
        return Err(format!("the items summed to {}, expected {}", got.sum, expected.sum));
    }
    Ok(())
}

/// Run `args`: its iterations one after another, each checked, each written to `out` as `wall_ns cpu_ns` once it
/// has passed. The error says which iteration was wrong, and how, or why the program could not run.
pub fn run(args: &Args, out: &mut dyn Write) -> Result<(), String> {
    let expected = match args.program {
        Program::Loop => Expected::chain_loop(args.items, args.work),
        _ => Expected::handoff(args.items),
    };
    let program = programs::Prepared::new(args)?;
    for iteration in 0..args.iterations {
        let (got, sample) = program.iterate()?;
        check(&got, &expected).map_err(|why| format!("{} iteration {iteration}: {why}", args.program.name()))?;
        writeln!(out, "{} {}", sample.wall_ns, sample.cpu_ns)
            .and_then(|()| out.flush())
            .map_err(|e| format!("cannot write the iteration's line: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_right_hand_off_passes() {
        let mut got = Received::default();
        (0..1_000).for_each(|i| got.push(i));
        assert_eq!(check(&got, &Expected::handoff(1_000)), Ok(()));
    }

    #[test]
    fn a_wrong_sum_is_caught_and_said() {
        let got = Received { sum: 499_501, count: 1_000, first_disorder: None };
        assert_eq!(check(&got, &Expected::handoff(1_000)), Err("the items summed to 499501, expected 499500".into()));
    }

    #[test]
    fn a_lost_item_and_a_swapped_pair_are_caught() {
        let mut short = Received::default();
        (0..999).for_each(|i| short.push(i));
        assert_eq!(check(&short, &Expected::handoff(1_000)), Err("received 999 items, expected 1000".into()));
        let mut swapped = Received::default();
        [0, 2, 1, 3].into_iter().for_each(|i| swapped.push(i));
        assert_eq!(check(&swapped, &Expected::handoff(4)), Err("item 1 arrived out of order".into()));
    }

    #[test]
    fn the_hand_off_reference_wraps_as_the_sum_does() {
        assert_eq!(Expected::handoff(0), Expected { sum: 0, count: Some(0) });
        assert_eq!(Expected::handoff(5).sum, 10);
        // 2³³ items sum to 2³²·(2³³ − 1) = 2⁶⁵ − 2³², which is −2³² modulo 2⁶⁴.
        assert_eq!(Expected::handoff(1 << 33).sum, 0u64.wrapping_sub(1 << 32));
    }

    #[test]
    fn the_loop_reference_keeps_the_even_values_of_map1() {
        // 0..4 at work 0: map1 gives 1, 4, 7, 10; the even ones are 4 and 10; map2 leaves both (x >> 7 is 0).
        assert_eq!(Expected::chain_loop(4, 0), Expected { sum: 14, count: None });
        let wrong = Received { sum: 15, count: 0, first_disorder: None };
        assert_eq!(check(&wrong, &Expected::chain_loop(4, 0)), Err("the items summed to 15, expected 14".into()));
    }

    #[test]
    fn every_program_passes_its_own_check_at_a_small_size() {
        for program in Program::ALL {
            let args = Args { program, items: 5_000, capacity: 16, iterations: 2, work: 3 };
            let mut out = Vec::new();
            assert_eq!(run(&args, &mut out), Ok(()), "{}", program.name());
            let text = String::from_utf8(out).expect("text");
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 2, "{text}");
            for line in lines {
                let fields: Vec<u64> = line.split(' ').map(|f| f.parse().expect("a number")).collect();
                assert_eq!(fields.len(), 2, "{line}");
                assert!(fields[0] > 0, "wall time of {line}");
            }
        }
    }
}
