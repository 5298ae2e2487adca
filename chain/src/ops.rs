//! The chain's stage functions, the stage objects contestants compose, and the independent reference.
//!
//! Every contestant applies the same three stages: [`map1`] (`x·3+1`, then `work` mixing rounds), [`keep`]
//! (even values) and [`map2`] (`x ^ (x >> 7)`), and sums with `wrapping_add`. Contestants call them through
//! [`Stages`], whose stage objects return `Result` so that every pipeline is written to carry a failing stage
//! to its end, as real pipelines must. Measured runs use [`Clean`] hooks, whose error type is
//! [`Infallible`]: `Result<u64, Infallible>` has the layout of `u64` and its error arms are statically dead, so
//! the measured code is the plain formula. Conformance checks use [`Tripwire`] hooks that count elements and
//! fail or panic where asked.
//!
//! [`reference_checksum`] and [`reference_items`] restate the formulas in a plain `while` loop without calling
//! any of the functions above, so a mistake in a stage function cannot hide in both sides of the comparison.

use std::convert::Infallible;
use std::ops::ControlFlow;
use std::sync::Arc;

use measure::meter::Meter;

use pipelines::sink::Sink;

use crate::job::{ChainError, Instruments, Outcome, StageError, StageName};

/// The multiplier of the mixing rounds (2⁶⁴ divided by the golden ratio).
pub const MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// Stage 1: `x·3+1`, then `work` rounds of `x = rotl(x, 5)·MIX ^ (x >> 29)`, all wrapping.
#[inline(always)]
pub fn map1(x: u64, work: u32) -> u64 {
    let mut x = x.wrapping_mul(3).wrapping_add(1);
    for _ in 0..work {
        x = x.rotate_left(5).wrapping_mul(MIX) ^ (x >> 29);
    }
    x
}

/// Stage 2, the filter: keep even values.
#[inline(always)]
pub fn keep(x: u64) -> bool {
    x % 2 == 0
}

/// Stage 3: `x ^ (x >> 7)`.
#[inline(always)]
pub fn map2(x: u64) -> u64 {
    x ^ (x >> 7)
}

/// The wrapping sum every contestant must produce: the sum of [`reference_items`], which restates the formulas
/// in a plain loop instead of calling the stage functions.
pub fn reference_checksum(input: &[u64], work: u32) -> u64 {
    reference_items(input, work).iter().fold(0, |sum, &x| sum.wrapping_add(x))
}

/// The items the consumer must receive, in input order, computed by a plain loop that restates the formulas
/// (independent of [`map1`], [`keep`] and [`map2`], so a mistake in either shows up as a mismatch).
pub fn reference_items(input: &[u64], work: u32) -> Vec<u64> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let mut x = input[i].wrapping_mul(3).wrapping_add(1);
        let mut round = 0;
        while round < work {
            x = x.rotate_left(5).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x >> 29);
            round += 1;
        }
        if x & 1 == 0 {
            items.push(x ^ (x >> 7));
        }
        i += 1;
    }
    items
}

/// What a stage does before its formula, for each element: nothing ([`Clean`]) or count and maybe fail
/// ([`Tripwire`]).
pub trait Hook: Clone + Send + Sync + 'static {
    /// The error a stage with this hook can return.
    type Error: Into<ChainError> + Send + Sync + std::fmt::Debug + std::fmt::Display + 'static;
    /// Called once per element the stage sees.
    fn check(&self) -> Result<(), Self::Error>;
}

/// No hook: the measured configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clean;

impl Hook for Clean {
    type Error = Infallible;

    #[inline(always)]
    fn check(&self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// Counts one stage's elements in shared [`Instruments`] and fails or panics where they say.
#[derive(Debug, Clone)]
pub struct Tripwire {
    stage: StageName,
    instruments: Arc<Instruments>,
}

impl Hook for Tripwire {
    type Error = StageError;

    #[inline]
    fn check(&self) -> Result<(), StageError> {
        self.instruments.tick(self.stage).map_err(|at| StageError { stage: self.stage, at })
    }
}

/// Stage 1 with its hook.
#[derive(Debug, Clone)]
pub struct Map1<H> {
    work: u32,
    hook: H,
}

/// The filter stage with its hook.
#[derive(Debug, Clone)]
pub struct Filter<H> {
    hook: H,
}

/// Stage 3 with its hook.
#[derive(Debug, Clone)]
pub struct Map2<H> {
    hook: H,
}

impl<H: Hook> Map1<H> {
    /// [`map1`] of one value.
    #[inline(always)]
    pub fn apply(&self, x: u64) -> Result<u64, H::Error> {
        self.hook.check()?;
        Ok(map1(x, self.work))
    }
}

impl<H: Hook> Filter<H> {
    /// Whether to keep `x`.
    #[inline(always)]
    pub fn test(&self, x: u64) -> Result<bool, H::Error> {
        self.hook.check()?;
        Ok(keep(x))
    }

    /// The filter on a `Result` flowing through an iterator or stream chain: errors pass through, kept values
    /// become `Some(Ok(x))`, dropped ones `None` (the shape `filter_map` wants).
    #[inline(always)]
    pub fn on(&self, item: Result<u64, H::Error>) -> Option<Result<u64, H::Error>> {
        match item.and_then(|x| self.test(x).map(|kept| kept.then_some(x))) {
            Ok(Some(x)) => Some(Ok(x)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// Keep only the batch's values that pass, in place and in order; an error leaves the batch partly filtered.
    #[inline]
    pub fn retain(&self, batch: &mut Vec<u64>) -> Result<(), H::Error> {
        let mut failure = None;
        batch.retain(|&x| match self.test(x) {
            Ok(kept) => kept,
            Err(e) => {
                failure.get_or_insert(e);
                false
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl<H: Hook> Map2<H> {
    /// [`map2`] of one value.
    #[inline(always)]
    pub fn apply(&self, x: u64) -> Result<u64, H::Error> {
        self.hook.check()?;
        Ok(map2(x))
    }

    /// [`map2`] on a `Result` flowing through a chain.
    #[inline(always)]
    pub fn on(&self, item: Result<u64, H::Error>) -> Result<u64, H::Error> {
        item.and_then(|x| self.apply(x))
    }
}

/// What one message of a channel pipeline carries: one item, or a batch (a `Vec` the source allocates, the maps
/// rewrite in place, the filter compacts with `retain` and the consumer frees), so that a pipeline's source,
/// stages and consumer are written once for both.
pub(crate) trait Message: Sized + Send + 'static {
    /// Whether it is a batch (the channels are sized by [`crate::ChainConfig::items_per_message`]).
    const BATCHED: bool;

    /// The items it carries, as the meter counts them.
    fn items(&self) -> u64;

    /// The input as messages of at most `batch` items (one each, unbatched).
    fn split(input: &[u64], batch: usize) -> impl Iterator<Item = Self> + Send + '_;

    /// [`map1`] of every item.
    fn map1<H: Hook>(self, map1: &Map1<H>) -> Result<Self, H::Error>;

    /// What the filter keeps, `None` when that is nothing.
    fn keep<H: Hook>(self, filter: &Filter<H>) -> Result<Option<Self>, H::Error>;

    /// The filter as a pipeline stage: what it keeps, what it drops counted out of `meter`.
    fn filter<H: Hook, M: Meter>(self, filter: &Filter<H>, meter: &M) -> Result<Option<Self>, H::Error>;

    /// [`map2`] of every item.
    fn map2<H: Hook>(self, map2: &Map2<H>) -> Result<Self, H::Error>;

    /// Into `sink`: the item, or the whole batch at once.
    fn deliver<S: Sink<Outcome>>(self, sink: &mut S) -> ControlFlow<()>;
}

impl Message for u64 {
    const BATCHED: bool = false;

    #[inline(always)]
    fn items(&self) -> u64 {
        1
    }

    #[inline(always)]
    fn split(input: &[u64], _batch: usize) -> impl Iterator<Item = u64> + Send + '_ {
        input.iter().copied()
    }

    #[inline(always)]
    fn map1<H: Hook>(self, map1: &Map1<H>) -> Result<u64, H::Error> {
        map1.apply(self)
    }

    #[inline(always)]
    fn keep<H: Hook>(self, filter: &Filter<H>) -> Result<Option<u64>, H::Error> {
        Ok(filter.test(self)?.then_some(self))
    }

    #[inline(always)]
    fn filter<H: Hook, M: Meter>(self, filter: &Filter<H>, meter: &M) -> Result<Option<u64>, H::Error> {
        if filter.test(self)? {
            Ok(Some(self))
        } else {
            meter.leave(1);
            Ok(None)
        }
    }

    #[inline(always)]
    fn map2<H: Hook>(self, map2: &Map2<H>) -> Result<u64, H::Error> {
        map2.apply(self)
    }

    #[inline(always)]
    fn deliver<S: Sink<Outcome>>(self, sink: &mut S) -> ControlFlow<()> {
        sink.push(self)
    }
}

/// Every item of `batch` through `f`, in place; the first error stops it.
#[inline]
fn each<E>(mut batch: Vec<u64>, f: impl Fn(u64) -> Result<u64, E>) -> Result<Vec<u64>, E> {
    for x in &mut batch {
        *x = f(*x)?;
    }
    Ok(batch)
}

impl Message for Vec<u64> {
    const BATCHED: bool = true;

    #[inline]
    fn items(&self) -> u64 {
        self.len() as u64
    }

    #[inline]
    fn split(input: &[u64], batch: usize) -> impl Iterator<Item = Vec<u64>> + Send + '_ {
        input.chunks(batch).map(<[u64]>::to_vec)
    }

    #[inline]
    fn map1<H: Hook>(self, map1: &Map1<H>) -> Result<Vec<u64>, H::Error> {
        each(self, |x| map1.apply(x))
    }

    #[inline]
    fn keep<H: Hook>(mut self, filter: &Filter<H>) -> Result<Option<Vec<u64>>, H::Error> {
        filter.retain(&mut self)?;
        Ok((!self.is_empty()).then_some(self))
    }

    #[inline]
    fn filter<H: Hook, M: Meter>(mut self, filter: &Filter<H>, meter: &M) -> Result<Option<Vec<u64>>, H::Error> {
        let before = self.len();
        filter.retain(&mut self)?;
        meter.leave((before - self.len()) as u64);
        Ok((!self.is_empty()).then_some(self))
    }

    #[inline]
    fn map2<H: Hook>(self, map2: &Map2<H>) -> Result<Vec<u64>, H::Error> {
        each(self, |x| map2.apply(x))
    }

    #[inline]
    fn deliver<S: Sink<Outcome>>(self, sink: &mut S) -> ControlFlow<()> {
        sink.push_batch(self)
    }
}

/// The three stages of one run, each with its own hook.
#[derive(Debug, Clone)]
pub struct Stages<H> {
    /// Stage 1.
    pub map1: Map1<H>,
    /// The filter.
    pub filter: Filter<H>,
    /// Stage 3.
    pub map2: Map2<H>,
}

impl Stages<Clean> {
    /// Plain stages: the measured configuration.
    pub fn clean(work: u32) -> Self {
        Stages { map1: Map1 { work, hook: Clean }, filter: Filter { hook: Clean }, map2: Map2 { hook: Clean } }
    }
}

impl Stages<Tripwire> {
    /// Stages that count their elements in `instruments` and fail where it says.
    pub fn instrumented(work: u32, instruments: &Arc<Instruments>) -> Self {
        let hook = |stage| Tripwire { stage, instruments: Arc::clone(instruments) };
        Stages {
            map1: Map1 { work, hook: hook(StageName::Map1) },
            filter: Filter { hook: hook(StageName::Filter) },
            map2: Map2 { hook: hook(StageName::Map2) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Fault, FaultAction};

    #[test]
    fn the_stage_functions_compose_to_the_reference() {
        let input: Vec<u64> = (0..5_000).collect();
        for work in [0, 1, 3, 64] {
            let by_stages =
                input.iter().map(|&x| map1(x, work)).filter(|&y| keep(y)).map(map2).fold(0, u64::wrapping_add);
            assert_eq!(by_stages, reference_checksum(&input, work), "work {work}");
            assert_eq!(reference_items(&input, work).into_iter().fold(0, u64::wrapping_add), by_stages);
        }
    }

    #[test]
    fn map1_without_work_is_three_x_plus_one() {
        assert_eq!(map1(0, 0), 1);
        assert_eq!(map1(5, 0), 16);
        assert_eq!(map1(u64::MAX, 0), u64::MAX.wrapping_mul(3).wrapping_add(1));
        assert_ne!(map1(5, 1), map1(5, 0));
    }

    #[test]
    fn a_tripwire_fails_its_stage_at_the_chosen_element_only() {
        let fault = Fault { site: StageName::Filter, at: 2, action: FaultAction::Error };
        let instruments = Arc::new(Instruments::new(StageName::Map1, Some(fault)));
        let stages = Stages::instrumented(0, &instruments);
        assert!(stages.map1.apply(1).is_ok());
        assert!(stages.filter.test(1).is_ok());
        assert!(stages.filter.test(1).is_ok());
        assert_eq!(stages.filter.test(1), Err(StageError { stage: StageName::Filter, at: 2 }));
        assert!(stages.filter.test(1).is_ok(), "only the chosen element fails");
        assert_eq!(instruments.seen(), 1, "the source's elements (map1's) are counted");
    }

    #[test]
    fn retain_keeps_evens_in_order() {
        let mut batch = vec![1, 2, 3, 4, 6, 7];
        assert!(Stages::clean(0).filter.retain(&mut batch).is_ok());
        assert_eq!(batch, vec![2, 4, 6]);
    }
}
