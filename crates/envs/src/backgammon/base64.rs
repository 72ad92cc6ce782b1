//! The base64 of GNU Backgammon's IDs: a key's bytes read as one bit
//! string, most significant bit of the first byte first, six bits a
//! character (`A-Z a-z 0-9 + /`), no padding; a last character holding
//! fewer than six bits has them in its high bits.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Characters that hold a key of `bytes` bytes.
pub(super) const fn id_length(bytes: usize) -> usize {
    (8 * bytes).div_ceil(6)
}

/// What is wrong with an ID's characters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Base64Error {
    /// A character outside the alphabet: (0-based index, character).
    Character(usize, char),
    /// Bits set in the last character past the key.
    Padding,
}

/// `key` in base64.
pub(super) fn encode(key: &[u8]) -> String {
    let mut id = String::with_capacity(id_length(key.len()));
    let (mut bits, mut held) = (0u32, 0);
    for &byte in key {
        bits = bits << 8 | byte as u32;
        held += 8;
        while held >= 6 {
            held -= 6;
            id.push(ALPHABET[(bits >> held & 63) as usize] as char);
        }
    }
    if held > 0 {
        id.push(ALPHABET[((bits << (6 - held)) & 63) as usize] as char);
    }
    id
}

/// The key of `N` bytes that `id` spells; the caller has checked that `id`
/// has [`id_length`]`(N)` characters.
pub(super) fn decode<const N: usize>(id: &str) -> Result<[u8; N], Base64Error> {
    let mut key = [0u8; N];
    let (mut bits, mut held, mut at) = (0u32, 0, 0);
    for (index, c) in id.chars().enumerate() {
        let value = ALPHABET.iter().position(|&a| a as char == c).ok_or(Base64Error::Character(index, c))?;
        bits = bits << 6 | value as u32;
        held += 6;
        if held >= 8 {
            held -= 8;
            key[at] = (bits >> held) as u8;
            at += 1;
        }
    }
    debug_assert_eq!(at, N, "base64 decode: {id} is not {} characters", id_length(N));
    if bits & ((1 << held) - 1) != 0 {
        return Err(Base64Error::Padding);
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_match_standard_base64() {
        // Standard base64 of these bytes is "4HPwATDgc/ABMA==".
        let key = [0xe0, 0x73, 0xf0, 0x01, 0x30, 0xe0, 0x73, 0xf0, 0x01, 0x30];
        assert_eq!(encode(&key), "4HPwATDgc/ABMA");
        assert_eq!(decode::<10>("4HPwATDgc/ABMA"), Ok(key));
        // Nine bytes fill twelve characters exactly.
        let key = [0x30, 0x01, 0x17, 0, 0, 0, 0, 0, 0];
        assert_eq!(encode(&key), "MAEXAAAAAAAA");
        assert_eq!(decode::<9>("MAEXAAAAAAAA"), Ok(key));
        assert_eq!(id_length(9), 12);
        assert_eq!(id_length(10), 14);
    }

    #[test]
    fn bad_characters_and_stray_bits_are_errors() {
        assert_eq!(decode::<10>("4HPwATDgc/AB-A"), Err(Base64Error::Character(12, '-')));
        assert_eq!(decode::<10>("4HPwATDgc/ABMB"), Err(Base64Error::Padding));
    }
}
