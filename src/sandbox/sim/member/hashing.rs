//! Stable short strings derived from content: `pod-template-hash`, pod IPs, container IDs.
//! The same input gives the same output in every run, so runs reproduce.

/// FNV-1a, 64 bits: small, stable, and spreads short inputs well.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The alphabet Kubernetes uses for generated suffixes and template hashes: no vowels (no
/// accidental words) and no look-alike characters.
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `len` characters of `ALPHABET` drawn from `hash`.
pub fn safe_encode(mut hash: u64, len: usize) -> String {
    let base = ALPHABET.len() as u64;
    (0..len)
        .map(|_| {
            let i = (hash % base) as usize;
            hash /= base;
            // `i < ALPHABET.len()` by construction.
            char::from(ALPHABET.get(i).copied().unwrap_or(b'b'))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(
            fnv1a(b""),
            0xcbf2_9ce4_8422_2325,
            "empty input is the offset basis"
        );
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c, "one byte");
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8, "a word");
    }

    #[test]
    fn safe_encoding_has_the_length_and_alphabet_asked_for() {
        for hash in [0, 1, u64::MAX, 0x1234_5678_9abc_def0] {
            let s = safe_encode(hash, 10);
            assert_eq!(s.len(), 10);
            assert!(s.bytes().all(|b| ALPHABET.contains(&b)), "{s}");
        }
        assert_ne!(
            safe_encode(1, 10),
            safe_encode(2, 10),
            "different hashes differ"
        );
    }
}
