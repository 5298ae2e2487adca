//! `coroutine-may-oneshot`: from a coroutine, make a `may::sync::mpsc` channel, send the number, `recv` it.

use std::hint::black_box;

use may::sync::mpsc;
use pipelines::coroutine::CoroutineConfig;

use super::{cancelled, in_coroutine, Primitive};
use crate::work::{Checked, Plain, Work};

/// `may` configured once per trial.
#[derive(Debug)]
pub(crate) struct MayOneshot {
    config: CoroutineConfig,
}

impl MayOneshot {
    pub(crate) fn new(config: CoroutineConfig) -> MayOneshot {
        config.apply();
        MayOneshot { config }
    }
}

impl MayOneshot {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        in_coroutine(self.config.stack_words, move || {
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(cancelled(i));
                }
                // `may` has no oneshot type: a channel made for one value is its one-shot hand-off.
                let (tx, rx) = mpsc::channel();
                let guard = work.start(i);
                tx.send(work.finish(i, black_box(i)).map_err(|e| e.to_string())?)
                    .map_err(|_| format!("receiver {i} gone"))?;
                drop(guard);
                sum = sum.wrapping_add(rx.recv().map_err(|e| e.to_string())?);
            }
            Ok(sum)
        })
    }
}

impl Primitive for MayOneshot {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }
}
