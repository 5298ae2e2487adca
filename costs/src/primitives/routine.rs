//! One trial of the primitives scenario in its own process: the harness's loop over a [`PrimitiveRoutine`] (each
//! iteration does the operation `ops` times and must hand back the sum of `0..ops`), then, in the first process of
//! each contestant, the edge checks and a small run ([`measure_then_check`]).

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::record::TrialRequest;
use measure::scenario::{measure_then_check, TrialError, TrialSink};
use measure::summary::Check;
use pipelines::conformance::{every_iteration_passed, prepared_or_failed};

use super::conformance::{self, check_small_run, expected_sum};
use super::contestants::{Contestant, OpError, Primitive};

pub(super) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let contestant = Contestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let ops = (request.param("ops")? / contestant.ops_divisor()).max(1);
    let measure = |sink: &mut dyn TrialSink| {
        let Some(primitive) = prepared_or_failed(contestant.prepare(), "every_operation_once", sink) else {
            return Ok(());
        };
        let mut routine = PrimitiveRoutine { primitive, ops };
        harness::run(&mut routine, request, sink);
        Ok(())
    };
    let checks = || {
        let mut checks = conformance::edges(contestant);
        // A fresh primitive for the small run, as the measured one was fresh for its iterations.
        if let Ok(primitive) = contestant.prepare() {
            checks.push(check_small_run(primitive.as_ref()));
        }
        checks
    };
    measure_then_check(request, sink, measure, checks)
}

/// One primitive as the harness runs it.
#[derive(Debug)]
struct PrimitiveRoutine {
    primitive: Box<dyn Primitive>,
    ops: u64,
}

impl Routine for PrimitiveRoutine {
    type Output = Result<u64, OpError>;

    fn run(&mut self, _: &Instruments, go: &mut dyn FnMut()) -> Result<Self::Output, Stop> {
        go();
        Ok(self.primitive.run(self.ops))
    }

    fn items(&self, _: &Self::Output) -> u64 {
        self.ops
    }

    fn finish(
        &mut self,
        iteration: Iteration,
        output: Self::Output,
        window: Window<'_>,
    ) -> Result<IterationData, Stop> {
        let expected = expected_sum(self.ops);
        match output {
            Ok(sum) if sum == expected => {}
            Ok(sum) => {
                return Err(Stop::failed(
                    "every_operation_once",
                    format!(
                        "iteration {}: {} operations handed back {sum}, expected {expected}",
                        iteration.index, self.ops
                    ),
                ))
            }
            Err(e) => return Err(Stop::failed("every_operation_once", format!("iteration {}: {e}", iteration.index))),
        }
        let mut data = IterationData::from_window(window);
        let timing = window.timing();
        data.timing.insert("ns_per_op".to_string(), timing.wall_ns as f64 / self.ops as f64);
        data.timing.insert("ops".to_string(), self.ops as f64);
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let what = format!(" of {} operations, each handing back the sum of their numbers", self.ops);
        vec![every_iteration_passed("every_operation_once", measured, accounted, &what)]
    }
}
