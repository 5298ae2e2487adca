//! What a trial process of either scenario sets up before its checks and its timed iterations: the placement
//! (server on one core, this client process on the others, or nothing pinned on a one-core machine) and the
//! server process, started from this very binary (`lab __serve`) and stopped when the session ends.

use measure::scenario::ParamSpec;
use measure::summary::Check;

use crate::affinity::{self, PinError, Placement};
use crate::error::NetworkError;
use crate::launch::{Launcher, ServerProcess, READY_WAIT};
use crate::server::ServeConfig;

/// The `pinned` parameter both scenarios take: whether [`Session::start`] pins the server and the client apart.
pub fn pinned_param() -> ParamSpec {
    ParamSpec::single(
        "pinned",
        "1 (the default): the server on one core, the client on one other, every client runtime sized to one core. \
         0: a labelled variant with nothing pinned, server and client sharing every core and the client runtimes \
         sized to all of them (client CPU is still the trial process's alone).",
        1,
        1,
        0,
        1,
    )
}

/// A trial's server and placement.
#[derive(Debug)]
pub struct Session {
    /// Where the server and the client run.
    pub placement: Placement,
    /// How the server was started (again for fault checks).
    pub launcher: Launcher,
    /// Its configuration (without pinning, for the fault checks' own servers).
    pub config: ServeConfig,
    /// The running server.
    pub server: ServerProcess,
    /// Whether pinning this client process worked, or why not.
    pub client_pinned: Result<(), PinError>,
}

impl Session {
    /// Plan the placement, pin this process's calling thread (and so every thread it starts later) to the
    /// client's cores, size the client runtimes to them, and start the server with `config` pinned to the server's
    /// core. With `pinned` false nothing is pinned and the runtimes are sized to every allowed core.
    pub fn start(launcher: Launcher, config: ServeConfig, pinned: bool) -> Result<Session, NetworkError> {
        let placement = if pinned { Placement::plan() } else { Placement::shared() };
        affinity::set_client_cores(match &placement {
            Placement::Pinned { client, .. } => client.len(),
            Placement::Unpinned { .. } if pinned => affinity::CLIENT_CORES,
            Placement::Unpinned { .. } => affinity::allowed_cores().len(),
        });
        let client_pinned = match &placement {
            Placement::Pinned { client, .. } => affinity::pin_current_thread(client).map_err(PinError::from),
            Placement::Unpinned { reason } => Err(PinError::Unplanned(reason.clone())),
        };
        let pinned_config = ServeConfig { core: placement.server_core(), ..config.clone() };
        let server = ServerProcess::start(&launcher, &pinned_config, READY_WAIT)?;
        Ok(Session { placement, launcher, config, server, client_pinned })
    }

    /// The `placement` check: where the server and client ran, as planned and as the OS took it. It always
    /// passes: an unpinned run is reported, not failed.
    pub fn placement_check(&self) -> Check {
        let server = match self.server.pinned() {
            Ok(Some(core)) => format!("the server confirmed core {core}"),
            Ok(None) => "the server is not pinned".to_string(),
            Err(e) => format!("pinning the server failed: {e}"),
        };
        let client = match &self.client_pinned {
            Ok(()) => "the client is pinned".to_string(),
            Err(PinError::Unplanned(_)) => "the client is not pinned".to_string(),
            Err(e @ PinError::Refused(_)) => format!("the client is not pinned ({e})"),
        };
        Check::new(
            "placement",
            true,
            format!(
                "{}; {server}; {client}; client runtimes sized to {} core(s); server pid {}",
                self.placement.describe(),
                affinity::client_cores(),
                self.server.pid()
            ),
        )
    }
}
