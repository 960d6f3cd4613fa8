//! The encoding of saved monitor states (MonPoly's `>save_state<`): bincode, with a read limit
//! so that a damaged or foreign file is an error, never a huge allocation.

use serde::de::DeserializeOwned;
use serde::Serialize;

use bincode::Options;

fn options() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
}

/// Encodes a state.
pub fn encode_state<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    options()
        .serialize(value)
        .expect("serializing to memory cannot fail")
}

/// Decodes a state (or its leading part: trailing bytes are allowed, so a header can be read
/// alone); `None` when the bytes are not such a state.
pub fn decode_state<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    options()
        .with_limit(bytes.len() as u64)
        .deserialize(bytes)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_and_garbage_is_refused_without_allocating() {
        let v = (String::from("state"), vec![1u64, 2, 3]);
        assert_eq!(
            decode_state::<(String, Vec<u64>)>(&encode_state(&v)),
            Some(v)
        );
        // A length prefix of 2^62 with nothing behind it.
        let mut garbage = (1u64 << 62).to_le_bytes().to_vec();
        garbage.extend_from_slice(b"abc");
        assert_eq!(decode_state::<String>(&garbage), None);
        assert_eq!(decode_state::<Vec<u64>>(&garbage), None);
        assert_eq!(decode_state::<(String, u32)>(&[]), None);
    }
}
