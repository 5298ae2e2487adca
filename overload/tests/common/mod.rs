//! What several test files share: a limit algorithm whose limit follows a script, whatever the samples say.

use overload::limit::{LimitAlgorithm, Sample};

/// A limit that `next(samples seen, limit now)` moves on every sample, whatever the sample says.
#[derive(Debug)]
pub(crate) struct Scripted {
    limit: usize,
    samples: usize,
    next: fn(usize, usize) -> usize,
}

impl Scripted {
    /// A limit starting at `limit`, moved by `next` on every sample.
    pub(crate) fn new(limit: usize, next: fn(usize, usize) -> usize) -> Box<Scripted> {
        Box::new(Scripted { limit, samples: 0, next })
    }
}

impl LimitAlgorithm for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn limit(&self) -> usize {
        self.limit
    }
    fn on_sample(&mut self, _sample: &Sample) -> usize {
        self.samples += 1;
        self.limit = (self.next)(self.samples, self.limit);
        self.limit
    }
}
