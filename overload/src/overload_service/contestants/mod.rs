//! The service's contestants: how each family handles an arrival. One load generator (an OS thread outside every
//! runtime, as requests come from the network) follows the schedule and hands each arrival over the way the
//! family receives a request:
//!
//! - `stream-<limiter>`: a tokio task per admitted arrival, spawned onto a multi-thread runtime (one worker per
//!   CPU), as a hyper or axum server spawns one per request; the task awaits the call.
//! - `blocking-<limiter>`: a pool of OS threads (128 KiB stacks) as large as the limiter's ceiling, fed through
//!   one crossbeam channel, as a servlet container's worker pool is; the thread that takes the arrival waits on
//!   the call. Only the gate bounds what is admitted, so no admitted arrival waits for a thread.
//! - `coroutine-<limiter>`: a `may` coroutine per admitted arrival (one carrier per CPU), as a virtual thread per
//!   request; it waits on the call, parking the coroutine.
//! - `<family>-<limiter>` for every limiter of [`LIMITERS`]: `fixed` (the healthy capacity, `fixed-limit`),
//!   `fixed-little` (a fixed bound sized by Little's law from the run's own parameters: the after-drop ceiling ×
//!   the deadline, [`crate::service_config::little_bound`]), `aimd`, `gradient2` and `vegas`.
//! - `<family>-unbounded`: the same without a gate; the blocking pool then has `unbounded-threads` threads and
//!   arrivals beyond them wait in its channel.
//!
//! Every family takes the same steps in the same order: the gate is asked as the arrival is handed over
//! ([`Calls::admit`], on the generator's thread, the same event in every family), then the call, then
//! [`Calls::finish`]. A full limit sheds the arrival at once (Netflix's `SimpleLimiter.acquire` returns empty;
//! asking inside a blocking pool's thread instead would queue arrivals for a thread and never shed), and a reply later than the
//! deadline from the arrival's scheduled start is reported to the limiter as a drop. The caller still waits for
//! that reply (the dependency cannot know the caller gave up), so the gate's count is what the dependency holds.
//!
//! The registry is this file; [`handler`] holds what every family's handler shares (the run's [`Calls`]) and
//! how each family receives an arrival ([`Prepared`], [`Handler`]).

pub mod handler;
pub mod run;

use std::sync::Arc;

use measure::summary::{ContestantInfo, Family, Role};
use pipelines::LiveStages;

pub use handler::{Calls, Handler, Prepared};

use crate::config::limiter_description;
use crate::error::RunError;
use crate::job::coroutine_config as coroutines;
use crate::limit::LimiterKind;

/// The limiters every family runs in the service, in report order.
pub const LIMITERS: [LimiterKind; 5] =
    [LimiterKind::Fixed, LimiterKind::FixedLittle, LimiterKind::Aimd, LimiterKind::Gradient2, LimiterKind::Vegas];

/// One contestant of the service: a family, and the limiter of its gate (`None`: unbounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceContestant {
    /// Its family.
    pub family: Family,
    /// Its limiter (`None`: no gate).
    pub limiter: Option<LimiterKind>,
}

impl ServiceContestant {
    /// Every contestant, in report order: each family with every limiter, then each family unbounded.
    pub fn all() -> Vec<ServiceContestant> {
        let families = [Family::Stream, Family::Blocking, Family::Coroutine];
        let mut all: Vec<ServiceContestant> = families
            .iter()
            .flat_map(|&family| LIMITERS.iter().map(move |&kind| ServiceContestant { family, limiter: Some(kind) }))
            .collect();
        all.extend(families.iter().map(|&family| ServiceContestant { family, limiter: None }));
        all
    }

    /// The contestant named `name`.
    pub fn find(name: &str) -> Option<ServiceContestant> {
        ServiceContestant::all().into_iter().find(|c| c.name() == name)
    }

    /// `<family>-<limiter>` or `<family>-unbounded`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.family.as_str(), self.limiter.map_or("unbounded", LimiterKind::name))
    }

    /// Name, family, role and description for reports.
    pub fn info(&self) -> ContestantInfo {
        let handler = match self.family {
            Family::Stream => {
                "a tokio task per arrival on a multi-thread runtime (one worker per CPU), spawned by the load \
                 generator as a server spawns one per request"
                    .to_string()
            }
            Family::Blocking if self.limiter.is_some() => "a pool of OS threads (128 KiB stacks) as large as the \
                               limiter's ceiling, started before timing and fed through one crossbeam channel"
                .to_string(),
            Family::Blocking => "a pool of `unbounded-threads` OS threads (128 KiB stacks, default 2,000), started \
                                 before timing and fed through one crossbeam channel: arrivals beyond them wait in \
                                 the channel"
                .to_string(),
            _ => format!("a `may` coroutine per arrival ({})", coroutines().describe()),
        };
        let description = match self.limiter {
            Some(kind) => format!(
                "{handler}; each asks the gate without waiting (`try_acquire`: a full limit sheds the arrival) and \
                 waits on its call; {}",
                limiter_description(kind)
            ),
            None => format!("{handler}; no admission control: every arrival is called"),
        };
        let role = if self.limiter.is_some() { Role::Candidate } else { Role::Pathology };
        ContestantInfo::new(self.name(), self.family, description).with_role(role)
    }

    /// What the contestant builds once per trial process (a runtime; `may`'s carriers).
    pub fn prepare(&self) -> Result<Prepared, RunError> {
        match self.family {
            Family::Stream => {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .thread_name("service-worker")
                    .build()
                    .map_err(RunError::Runtime)?;
                Ok(Prepared::Tasks(runtime))
            }
            Family::Coroutine => {
                coroutines().apply();
                Ok(Prepared::Coroutines(Arc::new(LiveStages::new())))
            }
            _ => Ok(Prepared::Pool),
        }
    }
}
