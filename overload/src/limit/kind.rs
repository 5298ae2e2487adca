//! Which limiter, as the scenario's contestants and the CLI name it, and how to build one.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::{Aimd, AimdConfig, Fixed, Gradient2, Gradient2Config, LimitAlgorithm, Vegas, VegasConfig};

/// Which limiter, as the scenario's contestants and CLI name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LimiterKind {
    /// [`Fixed`]: the bound configured from the healthy capacity.
    Fixed,
    /// [`Aimd`]: loss-based, a slow call counts as a drop.
    Aimd,
    /// [`Gradient2`]: delay-based, long-term against latest latency.
    Gradient2,
    /// [`Vegas`]: delay-based, queue estimated against the no-load latency.
    Vegas,
}

impl LimiterKind {
    /// Every limiter, in the order reports list them.
    pub const ALL: [LimiterKind; 4] =
        [LimiterKind::Fixed, LimiterKind::Aimd, LimiterKind::Gradient2, LimiterKind::Vegas];

    /// The name the CLI and the reports use: `"fixed"`, `"aimd"`, `"gradient2"` or `"vegas"`.
    pub fn name(self) -> &'static str {
        match self {
            LimiterKind::Fixed => "fixed",
            LimiterKind::Aimd => "aimd",
            LimiterKind::Gradient2 => "gradient2",
            LimiterKind::Vegas => "vegas",
        }
    }

    /// Builds this limiter's algorithm from `params` (same as [`build`]).
    pub fn build(self, params: &LimiterParams) -> Box<dyn LimitAlgorithm> {
        build(self, params)
    }
}

impl fmt::Display for LimiterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A limiter name that is not one of [`LimiterKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown limiter `{0}`: expected one of fixed, aimd, gradient2, vegas")]
pub struct UnknownLimiter(pub String);

impl FromStr for LimiterKind {
    type Err = UnknownLimiter;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LimiterKind::ALL.into_iter().find(|kind| kind.name() == s).ok_or_else(|| UnknownLimiter(s.to_owned()))
    }
}

/// The parameters the scenario sets for every limiter; the rest are each algorithm's defaults (among them
/// the minimum limit, 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimiterParams {
    /// The `fixed` limit (default 500: the bound a team would configure from the healthy capacity).
    pub fixed_limit: usize,
    /// The adaptive limits' starting point (default 20, Netflix's).
    pub initial: usize,
    /// The highest the adaptive limits go (default 1000).
    pub max: usize,
    /// A call slower than this counts as a drop for `aimd` (default 10 ms: twice the service time).
    pub latency_threshold: Duration,
}

impl Default for LimiterParams {
    fn default() -> Self {
        LimiterParams {
            fixed_limit: Fixed::DEFAULT_LIMIT,
            initial: 20,
            max: 1000,
            latency_threshold: Duration::from_millis(10),
        }
    }
}

/// Builds the algorithm `kind` names, with `params` over its defaults.
pub fn build(kind: LimiterKind, params: &LimiterParams) -> Box<dyn LimitAlgorithm> {
    match kind {
        LimiterKind::Fixed => Box::new(Fixed::new(params.fixed_limit)),
        LimiterKind::Aimd => Box::new(Aimd::new(AimdConfig {
            initial: params.initial,
            max: params.max,
            latency_threshold: params.latency_threshold,
            ..AimdConfig::default()
        })),
        LimiterKind::Gradient2 => Box::new(Gradient2::new(Gradient2Config {
            initial: params.initial,
            max: params.max,
            ..Gradient2Config::default()
        })),
        LimiterKind::Vegas => {
            Box::new(Vegas::new(VegasConfig { initial: params.initial, max: params.max, ..VegasConfig::default() }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_the_built_algorithm() {
        let params = LimiterParams::default();
        for kind in LimiterKind::ALL {
            assert_eq!(kind.name().parse::<LimiterKind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.name());
            assert_eq!(build(kind, &params).name(), kind.name());
        }
        let err = "gradient".parse::<LimiterKind>().expect_err("not a limiter");
        assert!(err.to_string().contains("`gradient`"));
    }

    #[test]
    fn params_set_the_starting_limits() {
        let params = LimiterParams::default();
        assert_eq!(LimiterKind::Fixed.build(&params).limit(), 500);
        for kind in [LimiterKind::Aimd, LimiterKind::Gradient2, LimiterKind::Vegas] {
            assert_eq!(kind.build(&params).limit(), 20, "{kind}");
        }
    }
}
