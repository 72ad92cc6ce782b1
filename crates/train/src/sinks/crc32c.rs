//! CRC-32C (Castagnoli), the checksum of TFRecord framing. A byte-wise
//! table is plenty for a few metric records per step.

/// The reflected Castagnoli polynomial.
const POLY: u32 = 0x82f6_3b78;

const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ POLY } else { crc >> 1 };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// The CRC-32C of `bytes`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| TABLE[((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8))
}

#[cfg(test)]
mod tests {
    use super::crc32c;

    #[test]
    fn matches_the_published_check_values() {
        // RFC 3720 (iSCSI) appendix B.4 and the CRC catalogue's check value.
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62a8_ab43);
        assert_eq!(crc32c(&(0u8..32).collect::<Vec<_>>()), 0x46dd_794e);
        assert_eq!(crc32c(b""), 0);
    }
}
