//! Hashes that are the same in every run, on every machine and in every version, for
//! what is kept or shown: ids made from long names, shingles, the places of a random
//! draw. (The hash maps use foldhash, whose values may change between versions.)

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// splitmix64's finaliser: spreads every input bit over the whole word.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a, then [`mix`]: a well-spread hash of `bytes`.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    mix(fnv1a(bytes))
}
