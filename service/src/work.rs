//! The CPU work of one request: W µs of the chain's mixing rounds ([`chain::ops::map1`]), split evenly over the
//! request's stages, each stage handing its value to the next. W is mapped onto rounds in the trial process
//! itself, by timing the rounds on the thread's CPU clock (the fastest of several timings, as `lab advise`
//! calibrates), so the same W means the same CPU time in a debug and a release build and on any machine.

use std::hint::black_box;
use std::time::Instant;

use chain::ops::map1;

/// Rounds timed per calibration sample.
const SAMPLE_ROUNDS: u32 = 200_000;
/// Samples taken; the fastest counts (another process sharing the core only slows a sample down).
const SAMPLES: u32 = 7;

/// One request's work: `stages` stages of `rounds` mixing rounds each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    /// Stages.
    pub stages: u32,
    /// Mixing rounds per stage.
    pub rounds: u32,
    /// What one round took when calibrated, ns.
    pub ns_per_round: f64,
}

impl Work {
    /// The work of `work_us` µs over `stages` stages, at `ns_per_round` ns per round.
    pub fn new(work_us: u64, stages: u32, ns_per_round: f64) -> Work {
        let total = work_us as f64 * 1e3 / ns_per_round.max(1e-3);
        let rounds = (total / f64::from(stages.max(1))).round().clamp(0.0, f64::from(u32::MAX)) as u32;
        Work { stages: stages.max(1), rounds, ns_per_round }
    }

    /// One stage's share of the work on `x`: the value the next stage receives.
    #[inline]
    pub fn stage(&self, x: u64) -> u64 {
        map1(x, self.rounds)
    }

    /// Every stage in turn on request `index`'s input, on the calling thread.
    pub fn all_stages(&self, index: u64) -> u64 {
        (0..self.stages).fold(index, |x, _| self.stage(x))
    }

    /// What request `index`'s last stage must hand on: the formula restated in a plain loop, independent of
    /// [`Work::stage`], so a mistake in either shows as a mismatch.
    pub fn expected(&self, index: u64) -> u64 {
        let mut x = index;
        for _ in 0..self.stages {
            x = x.wrapping_mul(3).wrapping_add(1);
            for _ in 0..self.rounds {
                x = x.rotate_left(5).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x >> 29);
            }
        }
        x
    }
}

/// Nanoseconds one mixing round takes on this thread's CPU clock (the wall clock where that clock is missing):
/// the fastest of [`SAMPLES`] timings of [`SAMPLE_ROUNDS`] rounds.
pub fn ns_per_round() -> f64 {
    let origin = Instant::now();
    let now = || measure::cpu::thread_cpu_clock_ns().map_or_else(|| origin.elapsed().as_nanos() as f64, |ns| ns as f64);
    let mut best = f64::INFINITY;
    for sample in 0..SAMPLES {
        let start = now();
        black_box(map1(black_box(u64::from(sample)), black_box(SAMPLE_ROUNDS)));
        best = best.min((now() - start) / f64::from(SAMPLE_ROUNDS));
    }
    best.max(1e-3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stages_in_turn_give_what_the_restated_formula_gives() {
        let work = Work::new(3, 3, 1.0);
        assert_eq!(work.rounds, 1_000);
        for index in [0, 1, 7, 12_345] {
            assert_eq!(work.all_stages(index), work.expected(index));
        }
        assert_ne!(work.expected(1), Work { rounds: 999, ..work }.expected(1));
    }

    #[test]
    fn a_round_takes_some_positive_time() {
        assert!(ns_per_round() > 0.0);
    }
}
