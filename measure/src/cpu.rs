//! CPU time and context switches from `getrusage`, for the whole process or the calling thread, and the
//! settling step that lets tick-based accounting book other threads' time before it is read.

use crate::units::Nanos;

/// A reading of `getrusage`: CPU time split into user and system, and context switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// User CPU time.
    pub user_ns: Nanos,
    /// System CPU time.
    pub system_ns: Nanos,
    /// Voluntary context switches (blocking, sleeping).
    pub voluntary_switches: u64,
    /// Involuntary context switches (preempted).
    pub involuntary_switches: u64,
}

impl Usage {
    /// User plus system CPU time.
    pub fn cpu_ns(&self) -> Nanos {
        self.user_ns + self.system_ns
    }
    /// Voluntary plus involuntary switches.
    pub fn switches(&self) -> u64 {
        self.voluntary_switches + self.involuntary_switches
    }
    /// `self - earlier`, saturating at zero field by field.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            system_ns: self.system_ns.saturating_sub(earlier.system_ns),
            voluntary_switches: self.voluntary_switches.saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self.involuntary_switches.saturating_sub(earlier.involuntary_switches),
        }
    }
}

/// The whole process so far, exited threads included (`RUSAGE_SELF`).
pub fn process_usage() -> Usage {
    unimplemented!()
}

/// The calling thread so far (`RUSAGE_THREAD`).
pub fn thread_usage() -> Usage {
    unimplemented!()
}

/// Wait until CPU time of threads that just ended has been booked, then read the process usage.
/// Returns the reading and the calling thread's own usage during the wait (to subtract).
pub fn settled_process_usage() -> (Usage, Usage) {
    unimplemented!()
}
