//! The blocking family's request paths, on OS threads started per run and parked before the clock starts: a
//! thread per stage behind bounded crossbeam channels with a pool for the calls ([`stage_threads`]), and a
//! bounded pool of threads, each running a whole request at a time ([`pool`]).

use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::{drain, Running};
use crate::config::ServiceConfig;
use crate::error::RunError;
use crate::requests::Requests;

/// Stack size of every thread: a stage's work and a blocking call need little.
const STACK_BYTES: usize = 256 * 1024;

/// A running blocking service: its entry and its threads.
struct Threads {
    entry: Option<Sender<(u64, u64)>>,
    threads: Vec<JoinHandle<()>>,
}

impl Threads {
    /// Start a thread named `name` running `body`, or end the ones started so far and say why not.
    fn spawn(&mut self, name: String, body: impl FnOnce() + Send + 'static) -> Result<(), RunError> {
        match thread::Builder::new().name(name.clone()).stack_size(STACK_BYTES).spawn(body) {
            Ok(thread) => {
                self.threads.push(thread);
                Ok(())
            }
            Err(source) => {
                drop(self.entry.take());
                Err(RunError::Thread { name, source })
            }
        }
    }
}

impl Drop for Threads {
    /// A service that could not start every thread ends the ones it started: without the entry they see their
    /// channels close in turn.
    fn drop(&mut self) {
        drop(self.entry.take());
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Running for Threads {
    fn submit(&self, index: u64) -> Result<(), RunError> {
        self.entry.as_ref().ok_or(RunError::EntryRefused)?.try_send((index, index)).map_err(|_| RunError::EntryRefused)
    }

    fn close(mut self: Box<Self>, requests: &Requests, limit: Duration) -> Result<(), RunError> {
        drop(self.entry.take());
        let drained = drain(requests, limit, || true);
        if drained.is_ok() {
            for thread in self.threads.drain(..) {
                thread.join().map_err(|_| RunError::Panicked)?;
            }
        }
        drained
    }
}

/// One whole request on the calling thread after its stages: the blocking call, then the reply.
fn call_and_reply(requests: &Requests, index: u64, value: u64) {
    let result = requests.call(index).wait();
    requests.called();
    requests.reply(index, value, result);
}

/// `dependency_bound` threads taking `(index, value)` from `receiver`, each making one call at a time.
fn callers(
    service: &mut Threads,
    receiver: &Receiver<(u64, u64)>,
    requests: &Arc<Requests>,
    n: usize,
) -> Result<(), RunError> {
    for i in 0..n {
        let (receiver, requests) = (receiver.clone(), Arc::clone(requests));
        service.spawn(format!("service-call-{i}"), move || {
            for (index, value) in receiver {
                call_and_reply(&requests, index, value);
            }
        })?;
    }
    Ok(())
}

/// A thread per stage behind bounded channels of `queue`, then `dependency_bound` calling threads.
pub(super) fn stage_threads(requests: &Arc<Requests>, config: &ServiceConfig) -> Result<impl Running, RunError> {
    let (entry, mut receiver) = bounded::<(u64, u64)>(config.admission);
    let mut service = Threads { entry: Some(entry), threads: Vec::new() };
    let work = requests.work;
    for stage in 0..work.stages {
        let (sender, next) = bounded::<(u64, u64)>(config.queue);
        let input = std::mem::replace(&mut receiver, next);
        service.spawn(format!("service-stage-{stage}"), move || {
            for (index, x) in input {
                if sender.send((index, work.stage(x))).is_err() {
                    break;
                }
            }
        })?;
    }
    callers(&mut service, &receiver, requests, config.dependency_bound)?;
    Ok(service)
}

/// A pool of `dependency_bound` threads fed by one bounded channel, each running a whole request at a time.
pub(super) fn pool(requests: &Arc<Requests>, config: &ServiceConfig) -> Result<impl Running, RunError> {
    let (entry, receiver) = bounded::<(u64, u64)>(config.admission);
    let mut service = Threads { entry: Some(entry), threads: Vec::new() };
    for i in 0..config.dependency_bound {
        let (receiver, requests) = (receiver.clone(), Arc::clone(requests));
        service.spawn(format!("service-pool-{i}"), move || {
            for (index, input) in receiver {
                let value = requests.work.all_stages(input);
                call_and_reply(&requests, index, value);
            }
        })?;
    }
    Ok(service)
}
