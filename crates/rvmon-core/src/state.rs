//! The encoding of saved monitor states (MonPoly's `>save_state<`): bincode behind a 64-bit
//! checksum, decoded with a read limit. A file damaged in transit is an error, never a huge
//! allocation nor a state that would make an engine index out of bounds later; a file crafted
//! to pass the checksum is trusted, as a program trusts its own save files.

use std::hash::Hasher;

use serde::de::DeserializeOwned;
use serde::Serialize;

use bincode::Options;
use rustc_hash::FxHasher;

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
}

fn checksum(payload: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(payload);
    h.write_usize(payload.len());
    h.finish()
}

/// A digest of a specification (its `Debug` form), saved with a monitor's state so that the
/// state restores only into a monitor of the same specification.
pub fn fingerprint(spec: &impl std::fmt::Debug) -> u64 {
    let mut h = FxHasher::default();
    h.write(format!("{spec:?}").as_bytes());
    h.finish()
}

/// Encodes a state: its checksum, then its bincode.
pub fn encode_state<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let payload = options()
        .serialize(value)
        .expect("serializing to memory cannot fail");
    let mut bytes = checksum(&payload).to_le_bytes().to_vec();
    bytes.extend_from_slice(&payload);
    bytes
}

/// Decodes a state (or its leading part: trailing bytes are allowed, so a header can be read
/// alone); `None` when the bytes are not such a state, or were damaged.
pub fn decode_state<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    let (sum, payload) = bytes.split_at_checked(8)?;
    if u64::from_le_bytes(sum.try_into().ok()?) != checksum(payload) {
        return None;
    }
    options()
        .with_limit(payload.len() as u64)
        .deserialize(payload)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_and_damage_is_refused_without_allocating() {
        let v = (String::from("state"), vec![1u64, 2, 3]);
        let bytes = encode_state(&v);
        assert_eq!(decode_state::<(String, Vec<u64>)>(&bytes), Some(v));
        // Any flipped bit, and any cut, is refused.
        for i in 0..bytes.len() * 8 {
            let mut damaged = bytes.clone();
            damaged[i / 8] ^= 1 << (i % 8);
            assert_eq!(
                decode_state::<(String, Vec<u64>)>(&damaged),
                None,
                "bit {i}"
            );
        }
        for n in 0..bytes.len() {
            assert_eq!(
                decode_state::<(String, Vec<u64>)>(&bytes[..n]),
                None,
                "cut at {n}"
            );
        }
        // A length prefix of 2^62 with nothing behind it, behind a valid checksum.
        let mut payload = (1u64 << 62).to_le_bytes().to_vec();
        payload.extend_from_slice(b"abc");
        let mut framed = checksum(&payload).to_le_bytes().to_vec();
        framed.extend_from_slice(&payload);
        assert_eq!(decode_state::<String>(&framed), None);
        assert_eq!(decode_state::<Vec<u64>>(&framed), None);
        assert_eq!(decode_state::<(String, u32)>(&[]), None);
    }
}
