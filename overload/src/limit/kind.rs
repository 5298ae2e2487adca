//! Which limiter, as the scenario's contestants and the CLI name it, and how to build one.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::{
    Aggregate, Aimd, AimdConfig, Fixed, Followed, Gradient2, Gradient2Config, LimitAlgorithm, Vegas, VegasConfig,
    WindowConfig, Windowed,
};

/// Which limiter, as the scenario's contestants and CLI name it. Every adaptive limiter updates on every
/// sample unless [`LimiterParams::windowed`] wraps it in [`Windowed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LimiterKind {
    /// `fixed` ([`Fixed`]): the bound configured from the healthy capacity.
    Fixed,
    /// `fixed-little` ([`Fixed`]): a bound sized by Little's law for a service with a deadline, the most calls
    /// the degraded dependency drains within one deadline; its value is [`LimiterParams::fixed_limit`] as the
    /// service sets it for this limiter. Service only, so not in [`ALL`](Self::ALL).
    FixedLittle,
    /// `aimd` ([`Aimd`], windowed): loss-based; a drop is a rejection or a call slower than the timeout.
    Aimd,
    /// `aimd-latency-<k>x` ([`Aimd`], windowed): a window whose average latency exceeds `k ×` the measured
    /// no-load latency counts as a drop. The field is `k` in tenths (15, 20, 40).
    AimdLatency(u16),
    /// `gradient2` ([`Gradient2`], windowed): delay-based, long-term against the window's latency.
    Gradient2,
    /// `vegas` ([`Vegas`], windowed, baseline from a window's minimum): delay-based, queue estimated against
    /// the no-load latency.
    Vegas,
    /// `congestion-limiter`: the `congestion-limiter` crate's own `DefaultLimiter` (its `Aimd`), which admits
    /// through its own semaphore; a gate built for it only mirrors its limit ([`Followed`]). Stream family only,
    /// so not in [`ALL`](Self::ALL).
    CongestionLimiter,
}

impl LimiterKind {
    /// Every limiter, in the order reports list them.
    pub const ALL: [LimiterKind; 7] = [
        LimiterKind::Fixed,
        LimiterKind::Aimd,
        LimiterKind::AimdLatency(15),
        LimiterKind::AimdLatency(20),
        LimiterKind::AimdLatency(40),
        LimiterKind::Gradient2,
        LimiterKind::Vegas,
    ];

    /// The name the CLI and the reports use: `"fixed"`, `"aimd"`, `"aimd-latency-1.5x"`, `"aimd-latency-2x"`,
    /// `"aimd-latency-4x"`, `"gradient2"` or `"vegas"`.
    pub fn name(self) -> &'static str {
        match self {
            LimiterKind::Fixed => "fixed",
            LimiterKind::FixedLittle => "fixed-little",
            LimiterKind::Aimd => "aimd",
            LimiterKind::AimdLatency(15) => "aimd-latency-1.5x",
            LimiterKind::AimdLatency(20) => "aimd-latency-2x",
            LimiterKind::AimdLatency(40) => "aimd-latency-4x",
            LimiterKind::AimdLatency(_) => "aimd-latency",
            LimiterKind::Gradient2 => "gradient2",
            LimiterKind::Vegas => "vegas",
            LimiterKind::CongestionLimiter => "congestion-limiter",
        }
    }

    /// Whether the limit moves (every limiter but `fixed` and `fixed-little`).
    pub fn is_adaptive(self) -> bool {
        !matches!(self, LimiterKind::Fixed | LimiterKind::FixedLittle)
    }
}

impl fmt::Display for LimiterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A limiter name that is not one of [`LimiterKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown limiter `{0}`: expected one of fixed, aimd, aimd-latency-1.5x, aimd-latency-2x, aimd-latency-4x, \
     gradient2, vegas"
)]
pub struct UnknownLimiter(pub String);

impl FromStr for LimiterKind {
    type Err = UnknownLimiter;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LimiterKind::ALL
            .into_iter()
            .chain([LimiterKind::CongestionLimiter, LimiterKind::FixedLittle])
            .find(|kind| kind.name() == s)
            .ok_or_else(|| UnknownLimiter(s.to_owned()))
    }
}

/// The parameters the scenario sets for every limiter; the rest are each algorithm's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimiterParams {
    /// The `fixed` limit (default 500: the bound a team would configure from the healthy capacity).
    pub fixed_limit: usize,
    /// The adaptive limits' starting point (default 20, Netflix's).
    pub initial: usize,
    /// The lowest the adaptive limits go (default 20, Netflix's and tower-acc's).
    pub min: usize,
    /// The highest the adaptive limits go (default 500: the fixed bound, so every bounded contestant shares one
    /// ceiling).
    pub max: usize,
    /// `aimd` counts a call slower than this as a drop (a timeout; default 5 s, Netflix's).
    pub timeout: Duration,
    /// The no-load latency the `aimd-latency-<k>x` thresholds multiply: the trial measures it (the median of
    /// uncontended calls, waited for the contestant's way) before timing; default 5 ms, the service time.
    pub no_load: Duration,
    /// Whether every adaptive limiter is wrapped in the lab's short window ([`Windowed`]: at least 10 samples
    /// and twice the smallest latency seen); default `false`, each algorithm updated on every sample as
    /// Netflix's `SimpleLimiter` runs it by default.
    pub windowed: bool,
}

impl LimiterParams {
    /// Small limiter settings: initial 20, floor 5, ceiling 40, fixed 30, a 4 ms timeout, 2 ms no-load latency.
    pub(crate) fn small() -> LimiterParams {
        LimiterParams {
            fixed_limit: 30,
            initial: 20,
            min: 5,
            max: 40,
            timeout: Duration::from_millis(4),
            no_load: Duration::from_millis(2),
            windowed: false,
        }
    }
}

impl Default for LimiterParams {
    fn default() -> Self {
        LimiterParams {
            fixed_limit: Fixed::DEFAULT_LIMIT,
            initial: 20,
            min: 20,
            max: 500,
            timeout: Duration::from_secs(5),
            no_load: Duration::from_millis(5),
            windowed: false,
        }
    }
}

impl LimiterParams {
    /// The latency above which `aimd-latency-<k>x` counts a window as a drop: `k ×` [`no_load`](Self::no_load).
    pub fn latency_threshold(&self, tenths: u16) -> Duration {
        self.no_load.mul_f64(f64::from(tenths) / 10.0)
    }
}

/// Builds the algorithm `kind` names, with `params` over its defaults: updated on every sample (Netflix's
/// `SimpleLimiter` default), or, with [`LimiterParams::windowed`], wrapped in the lab's short window.
pub fn build(kind: LimiterKind, params: &LimiterParams) -> Box<dyn LimitAlgorithm> {
    let min = params.min.min(params.max);
    let initial = params.initial.clamp(min, params.max.max(min));
    let wrap = |inner: Box<dyn LimitAlgorithm>, window: WindowConfig| {
        if params.windowed {
            Box::new(Windowed::new(inner, window)) as Box<dyn LimitAlgorithm>
        } else {
            inner
        }
    };
    let aimd = |latency_threshold, name| {
        let inner =
            Aimd::new(AimdConfig { initial, min, max: params.max, latency_threshold, name, ..AimdConfig::default() });
        wrap(Box::new(inner), WindowConfig { ignore_before_cut: true, ..WindowConfig::default() })
    };
    match kind {
        LimiterKind::Fixed => Box::new(Fixed::new(params.fixed_limit)),
        LimiterKind::FixedLittle => Box::new(Fixed::named(params.fixed_limit, kind.name())),
        LimiterKind::Aimd => aimd(params.timeout, kind.name()),
        LimiterKind::AimdLatency(tenths) => aimd(params.latency_threshold(tenths), kind.name()),
        LimiterKind::Gradient2 => {
            let inner = Gradient2::new(Gradient2Config { initial, min, max: params.max, ..Gradient2Config::default() });
            wrap(Box::new(inner), WindowConfig::default())
        }
        LimiterKind::Vegas => {
            let inner = Vegas::new(VegasConfig { initial, min, max: params.max, ..VegasConfig::default() });
            wrap(Box::new(inner), WindowConfig { aggregate: Aggregate::Minimum, ..WindowConfig::default() })
        }
        // The crate's limiter runs its own algorithm; the gate only follows it, from the same start.
        LimiterKind::CongestionLimiter => Box::new(Followed::new(kind.name(), initial)),
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
        let little = LimiterKind::FixedLittle;
        assert_eq!(little.name().parse::<LimiterKind>(), Ok(little));
        assert_eq!(build(little, &LimiterParams { fixed_limit: 400, ..params }).name(), "fixed-little");
        assert_eq!(build(little, &LimiterParams { fixed_limit: 400, ..params }).limit(), 400);
        assert!(!little.is_adaptive());
        let err = "gradient".parse::<LimiterKind>().expect_err("not a limiter");
        assert!(err.to_string().contains("`gradient`"));
    }

    #[test]
    fn params_set_the_starting_limits_and_one_ceiling() {
        let params = LimiterParams::default();
        assert_eq!(build(LimiterKind::Fixed, &params).limit(), 500);
        for kind in LimiterKind::ALL.into_iter().filter(|k| k.is_adaptive()) {
            assert_eq!(build(kind, &params).limit(), 20, "{kind}");
        }
        assert_eq!(params.max, params.fixed_limit, "the adaptive ceiling is the fixed bound");
        assert_eq!(params.latency_threshold(15), Duration::from_micros(7_500));
        assert_eq!(params.latency_threshold(40), Duration::from_millis(20));
    }
}
