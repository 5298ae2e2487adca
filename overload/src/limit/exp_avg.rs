//! An exponential moving average with a plain-average warm-up, after Netflix's `ExpAvgMeasurement`
//! (`concurrency-limits-core/src/main/java/com/netflix/concurrency/limits/limit/measurement/ExpAvgMeasurement.java`).

/// The first `warmup` samples are averaged plainly; after that each sample moves the value by the factor
/// `2 / (window + 1)`.
///
/// Netflix quirk kept on purpose: [`scale`](Self::scale) changes the value but not the warm-up sum, so a
/// scaling during warm-up is undone by the next sample.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ExpAvg {
    value: f64,
    sum: f64,
    count: usize,
    warmup: usize,
    factor: f64,
}

impl ExpAvg {
    /// An empty average (value 0) over `window` samples after `warmup` plain ones.
    pub(crate) fn new(window: usize, warmup: usize) -> ExpAvg {
        ExpAvg { value: 0.0, sum: 0.0, count: 0, warmup, factor: 2.0 / (window as f64 + 1.0) }
    }

    /// Adds a sample and returns the new value.
    pub(crate) fn add(&mut self, sample: f64) -> f64 {
        if self.count < self.warmup {
            self.count += 1;
            self.sum += sample;
            self.value = self.sum / self.count as f64;
        } else {
            self.value = self.value * (1.0 - self.factor) + sample * self.factor;
        }
        self.value
    }

    /// The current value (0 before any sample).
    pub(crate) fn get(&self) -> f64 {
        self.value
    }

    /// Multiplies the current value by `by` (Netflix's `update(current -> current * by)`).
    pub(crate) fn scale(&mut self, by: f64) {
        self.value *= by;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages_plainly_during_warm_up_then_exponentially() {
        let mut avg = ExpAvg::new(3, 2);
        assert_eq!(avg.get(), 0.0);
        assert_eq!(avg.add(10.0), 10.0);
        assert_eq!(avg.add(20.0), 15.0);
        // factor = 2 / (3 + 1) = 0.5: 15 × 0.5 + 25 × 0.5 = 20.
        assert_eq!(avg.add(25.0), 20.0);
    }

    #[test]
    fn scaling_during_warm_up_is_undone_by_the_next_sample() {
        let mut avg = ExpAvg::new(600, 10);
        avg.add(100.0);
        avg.scale(0.5);
        assert_eq!(avg.get(), 50.0);
        assert_eq!(avg.add(100.0), 100.0);
    }
}
