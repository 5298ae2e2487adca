//! What travels over the sockets: a sequence number and a checksum the server computes from it, so a client can
//! tell that every reply is the answer to its own request.
//!
//! - TCP: a request is 16 bytes (sequence number, token; little-endian `u64`s); the reply is 16 bytes (the same
//!   sequence number, [`mix`] of the token).
//! - HTTP/1.1: `GET /echo/<seq>`; the reply's body is `<seq> <mix(seq)>`.

/// Bytes of a TCP request and of its reply.
pub const FRAME: usize = 16;

/// The checksum the server returns for `x`: the splitmix64 finaliser, so a wrong or stale reply does not match.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The token a TCP client sends with `seq` on connection `conn`.
pub fn token(seq: u64, conn: usize) -> u64 {
    seq ^ ((conn as u64) << 48)
}

/// A TCP request frame.
pub fn request(seq: u64, token: u64) -> [u8; FRAME] {
    let mut frame = [0u8; FRAME];
    frame[..8].copy_from_slice(&seq.to_le_bytes());
    frame[8..].copy_from_slice(&token.to_le_bytes());
    frame
}

/// The two words of a frame.
pub fn words(frame: &[u8; FRAME]) -> (u64, u64) {
    let mut a = [0u8; 8];
    let mut b = [0u8; 8];
    a.copy_from_slice(&frame[..8]);
    b.copy_from_slice(&frame[8..]);
    (u64::from_le_bytes(a), u64::from_le_bytes(b))
}

/// The server's reply to a request frame.
pub fn reply(request: &[u8; FRAME]) -> [u8; FRAME] {
    let (seq, token) = words(request);
    self::request(seq, mix(token))
}

/// Why a reply does not answer its request, or a connection's part of a run was lost (counted as wrong).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WrongReply {
    /// A TCP reply carries another request's sequence number.
    #[error("reply out of order: sequence {got} where {asked} was asked")]
    OutOfOrder {
        /// The sequence number the reply carries.
        got: u64,
        /// The sequence number asked.
        asked: u64,
    },
    /// A TCP reply carries the wrong checksum.
    #[error("wrong checksum {got:#x} for sequence {seq}")]
    Checksum {
        /// The checksum the reply carries.
        got: u64,
        /// The sequence number asked.
        seq: u64,
    },
    /// An HTTP reply's body is not the echo of its call.
    #[error("body {got:?} where {due:?} was due")]
    Body {
        /// The body received (lossily decoded).
        got: String,
        /// The body due.
        due: String,
    },
    /// A connection's thread or coroutine panicked (`thread`, `coroutine`): its part of the run is lost.
    #[error("a connection {0} panicked")]
    Panicked(&'static str),
    /// A connection's task, or a blocking exchange on tokio's pool, ended without its result.
    #[error("{what} failed: {detail}")]
    Lost {
        /// What ended: `a connection task`, `the blocking exchange`.
        what: &'static str,
        /// Tokio's reason.
        detail: String,
    },
}

/// Why a TCP reply does not answer `(seq, token)`, if it does not.
pub fn check_reply(seq: u64, token: u64, reply: &[u8; FRAME]) -> Result<(), WrongReply> {
    let (got_seq, got_sum) = words(reply);
    if got_seq != seq {
        return Err(WrongReply::OutOfOrder { got: got_seq, asked: seq });
    }
    if got_sum != mix(token) {
        return Err(WrongReply::Checksum { got: got_sum, seq });
    }
    Ok(())
}

/// The path of the HTTP request for `seq`.
pub fn http_path(seq: u64) -> String {
    format!("/echo/{seq}")
}

/// The sequence number of the HTTP request path `path`, or `None` if it is not an echo path.
pub fn http_seq(path: &str) -> Option<u64> {
    path.strip_prefix("/echo/")?.parse().ok()
}

/// The HTTP reply body for the request path `path`, or `None` if it is not an echo path.
pub fn http_body(path: &str) -> Option<String> {
    let seq = http_seq(path)?;
    Some(format!("{seq} {}", mix(seq)))
}

/// Why an HTTP reply body does not answer `seq`, if it does not.
pub fn check_http_body(seq: u64, body: &[u8]) -> Result<(), WrongReply> {
    let due = format!("{seq} {}", mix(seq));
    if body == due.as_bytes() {
        Ok(())
    } else {
        Err(WrongReply::Body { got: String::from_utf8_lossy(body).into_owned(), due })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_answers_its_own_request_only() {
        let req = request(7, token(7, 3));
        let rep = reply(&req);
        assert_eq!(check_reply(7, token(7, 3), &rep), Ok(()));
        assert!(check_reply(8, token(8, 3), &rep).is_err_and(|e| e.to_string().contains("out of order")));
        assert!(check_reply(7, token(7, 4), &rep).is_err_and(|e| e.to_string().contains("checksum")));
    }

    #[test]
    fn an_http_body_carries_the_sequence_and_its_checksum() {
        let body = http_body(&http_path(42)).unwrap_or_default();
        assert_eq!(check_http_body(42, body.as_bytes()), Ok(()));
        assert!(check_http_body(43, body.as_bytes()).is_err());
        assert_eq!(http_body("/other"), None);
    }
}
