//! The bytes a waiting unit holds while it waits, and the checksum it hands back when released, so a run proves
//! that every unit kept its own payload intact to the end.

/// `bytes` bytes owned by unit `unit`, filled with a pattern that depends on both; no allocation when `bytes` is
/// 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    unit: u64,
    bytes: Box<[u8]>,
}

impl Payload {
    /// The payload of unit `unit`, `bytes` long.
    pub fn new(unit: u64, bytes: usize) -> Payload {
        Payload { unit, bytes: (0..bytes).map(|i| pattern(unit, i)).collect() }
    }

    /// The unit's number plus the sum of its bytes: what a released unit hands back.
    pub fn checksum(&self) -> u64 {
        self.bytes.iter().fold(self.unit, |sum, &b| sum.wrapping_add(u64::from(b)))
    }
}

/// Byte `i` of unit `unit`'s payload.
#[inline]
fn pattern(unit: u64, i: usize) -> u8 {
    (unit as u8).wrapping_mul(31).wrapping_add(i as u8)
}

/// The sum of the checksums of units `0..count` with payloads of `bytes` bytes (what a run must hand back).
pub fn expected_total(count: u64, bytes: usize) -> u64 {
    (0..count).fold(0u64, |total, unit| {
        let sum = (0..bytes).fold(unit, |sum, i| sum.wrapping_add(u64::from(pattern(unit, i))));
        total.wrapping_add(sum)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_total_is_the_sum_of_every_units_checksum() {
        let total = (0..50).map(|u| Payload::new(u, 100).checksum()).fold(0u64, u64::wrapping_add);
        assert_eq!(total, expected_total(50, 100));
        assert_eq!(expected_total(4, 0), 6, "without bytes a unit hands back its number");
    }

    #[test]
    fn a_changed_byte_changes_the_checksum() {
        let mut p = Payload::new(7, 16);
        let before = p.checksum();
        p.bytes[3] ^= 1;
        assert_ne!(before, p.checksum());
    }
}
