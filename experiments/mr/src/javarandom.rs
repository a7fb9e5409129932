//! An exact port of `java.util.Random` (the 48-bit linear congruential generator of the JDK) and of
//! `java.util.Collections.shuffle(List, Random)`, so that seeded runs reproduce the Java MRG tool.

const MULTIPLIER: i64 = 0x5_DEEC_E66D;
const ADDEND: i64 = 0xB;
const MASK: i64 = (1 << 48) - 1;

/// `java.util.Random`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaRandom {
    seed: i64,
}

impl JavaRandom {
    /// `new Random(seed)`.
    pub fn new(seed: i64) -> Self {
        JavaRandom {
            seed: (seed ^ MULTIPLIER) & MASK,
        }
    }

    /// `setSeed(seed)` (also clears Java's cached `nextGaussian`, which this port does not have).
    pub fn set_seed(&mut self, seed: i64) {
        self.seed = (seed ^ MULTIPLIER) & MASK;
    }

    /// `next(bits)`: the top `bits` bits (1..=32) of the advanced 48-bit state, as a Java `int`.
    pub fn next(&mut self, bits: u32) -> i32 {
        debug_assert!((1..=32).contains(&bits));
        self.seed = (self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        // Java: (int) (seed >>> (48 - bits)); seed is non-negative so >> equals >>>.
        (self.seed >> (48 - bits)) as i32
    }

    /// `nextInt()`.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`. Panics if `bound <= 0`, as Java throws `IllegalArgumentException`.
    pub fn next_int_bounded(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            // Power of two: the high bits.
            ((bound as i64 * r as i64) >> 31) as i32
        } else {
            let mut u = r;
            loop {
                r = u % bound;
                // Java: u - r + m < 0 with int overflow.
                if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                    break r;
                }
                u = self.next(31);
            }
        }
    }

    /// `nextLong()`: `((long) next(32) << 32) + next(32)`, the second term sign-extended.
    pub fn next_long(&mut self) -> i64 {
        let hi = (self.next(32) as i64) << 32;
        hi.wrapping_add(self.next(32) as i64)
    }

    /// `nextBoolean()`.
    pub fn next_boolean(&mut self) -> bool {
        self.next(1) != 0
    }

    /// `nextDouble()` (JDK 8+ formula: 53 random bits scaled by 2^-53).
    pub fn next_double(&mut self) -> f64 {
        let v = ((self.next(26) as i64) << 27) + self.next(27) as i64;
        v as f64 * (1.0f64 / (1u64 << 53) as f64)
    }

    /// `Collections.shuffle(list, this)`: for `i` from `len` down to 2, swap `i - 1` with
    /// `nextInt(i)`. (Java's random-access branch; the other branch draws the same numbers.)
    pub fn shuffle<T>(&mut self, list: &mut [T]) {
        // Java lists hold at most i32::MAX elements; larger slices are outside the port's contract.
        let len = list.len().min(i32::MAX as usize);
        for i in (2..=len).rev() {
            let j = self.next_int_bounded(i as i32) as usize;
            list.swap(i - 1, j);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Reference values printed by `tests/java/RandomRef.java` under OpenJDK 17.0.15
    //! (`javac -d /tmp RandomRef.java && java -cp /tmp RandomRef`).
    use super::*;

    fn ints(seed: i64, n: usize, mut f: impl FnMut(&mut JavaRandom) -> i64) -> Vec<i64> {
        let mut r = JavaRandom::new(seed);
        (0..n).map(|_| f(&mut r)).collect()
    }

    #[test]
    fn next_int_matches_java() {
        let cases: [(i64, [i64; 5]); 3] = [
            (
                1,
                [-1155869325, 431529176, 1761283695, 1749940626, 892128508],
            ),
            (
                10001,
                [-499087629, 296878424, -1623961426, -1899232614, -257129521],
            ),
            (
                42,
                [-1170105035, 234785527, -1360544799, 205897768, 1325939940],
            ),
        ];
        for (seed, want) in cases {
            assert_eq!(ints(seed, 5, |r| r.next_int() as i64), want, "seed {seed}");
        }
    }

    #[test]
    fn next_int_bounded_matches_java() {
        #[rustfmt::skip]
        let cases: &[(i64, i32, [i64; 8])] = &[
            (1, 10, [5, 8, 7, 3, 4, 4, 4, 6]),
            (1, 16, [11, 1, 6, 6, 3, 0, 5, 10]),
            (1, 7, [4, 4, 1, 0, 6, 6, 0, 1]),
            (1, 1, [0; 8]),
            (1, 1000, [985, 588, 847, 313, 254, 904, 434, 606]),
            (1, 1 << 30, [784774492, 107882294, 440320923, 437485156, 223032127, 38907452, 357252217, 707453303]),
            (1, i32::MAX, [1569548985, 215764588, 880641847, 874970313, 446064254, 77814904, 714504434, 1414906606]),
            (10001, 10, [3, 2, 5, 1, 7, 6, 4, 3]),
            (10001, 16, [14, 1, 9, 8, 15, 4, 9, 7]),
            (10001, 7, [6, 5, 4, 6, 6, 3, 6, 5]),
            (10001, 1, [0; 8]),
            (10001, 1000, [833, 212, 935, 341, 887, 426, 584, 363]),
            (10001, 1 << 30, [948969916, 74219606, 667751467, 598933670, 1009459443, 317661713, 614997792, 529351181]),
            (10001, i32::MAX, [1897939833, 148439212, 1335502935, 1197867341, 2018918887, 635323426, 1229995584, 1058702363]),
            (42, 10, [0, 3, 8, 4, 0, 5, 5, 8]),
            (42, 16, [11, 0, 10, 0, 4, 15, 4, 11]),
            (42, 7, [1, 5, 6, 3, 5, 4, 1, 3]),
            (42, 1, [0; 8]),
            (42, 1000, [130, 763, 248, 884, 970, 525, 505, 918]),
            (42, 1 << 30, [781215565, 58696381, 733605624, 51474442, 331484985, 1011543762, 297510752, 759898459]),
            (42, i32::MAX, [1562431130, 117392763, 1467211248, 102948884, 662969970, 2023087525, 595021505, 1519796918]),
        ];
        for &(seed, bound, want) in cases {
            assert_eq!(
                ints(seed, 8, |r| r.next_int_bounded(bound) as i64),
                want,
                "seed {seed} bound {bound}"
            );
        }
    }

    #[test]
    fn next_long_matches_java() {
        let cases: [(i64, [i64; 4]); 3] = [
            (
                1,
                [
                    -4964420948893066024,
                    7564655870752979346,
                    3831662765844904176,
                    6137546356583794141,
                ],
            ),
            (
                10001,
                [
                    -2143565044096302760,
                    -6974861216534756710,
                    -1104362882260498364,
                    -7881162452288337865,
                ],
            ),
            (
                42,
                [
                    -5025562857975149833,
                    -5843495416241995736,
                    5694868678511409995,
                    5111195811822994797,
                ],
            ),
        ];
        for (seed, want) in cases {
            assert_eq!(ints(seed, 4, |r| r.next_long()), want, "seed {seed}");
        }
    }

    #[test]
    fn next_double_matches_java_bit_for_bit() {
        let cases: [(i64, [u64; 4]); 3] = [
            (
                1,
                [
                    4604758385039885542,
                    4601058979077218200,
                    4596651736145909532,
                    4599665317554862172,
                ],
            ),
            (
                10001,
                [
                    4606135756083007498,
                    4603776724825956372,
                    4606643179119043650,
                    4603334195009398849,
                ],
            ),
            (
                42,
                [
                    4604728530581845079,
                    4604329149490933249,
                    4599233015213898676,
                    4598663022256506966,
                ],
            ),
        ];
        for (seed, want) in cases {
            let got = ints(seed, 4, |r| r.next_double().to_bits() as i64);
            let want: Vec<i64> = want.iter().map(|&b| b as i64).collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn next_boolean_matches_java() {
        let cases: [(i64, [bool; 8]); 3] = [
            (1, [true, false, false, false, false, false, false, true]),
            (10001, [true, false, true, true, true, false, true, false]),
            (42, [true, false, true, false, false, true, false, true]),
        ];
        for (seed, want) in cases {
            let mut r = JavaRandom::new(seed);
            let got: Vec<bool> = (0..8).map(|_| r.next_boolean()).collect();
            assert_eq!(got, want, "seed {seed}");
        }
    }

    #[test]
    fn shuffle_matches_java_collections_shuffle() {
        let cases: [(i64, [u8; 10], [u8; 10], i32); 3] = [
            (
                1,
                [6, 9, 7, 8, 4, 2, 0, 3, 1, 5],
                [0, 2, 6, 4, 3, 1, 7, 5, 8, 9],
                -1154715079,
            ),
            (
                10001,
                [0, 8, 9, 2, 5, 1, 6, 4, 7, 3],
                [8, 2, 4, 1, 5, 3, 0, 7, 6, 9],
                -497933382,
            ),
            (
                42,
                [4, 6, 2, 1, 7, 9, 8, 5, 3, 0],
                [9, 5, 0, 1, 8, 3, 7, 4, 2, 6],
                -1170489784,
            ),
        ];
        for (seed, once, twice, after_reseed) in cases {
            let mut list: Vec<u8> = (0..10).collect();
            JavaRandom::new(seed).shuffle(&mut list);
            assert_eq!(list, once, "seed {seed}");
            // Java program: shuffle the shuffled list twice with one generator, then setSeed(seed+1).
            let mut r = JavaRandom::new(seed);
            r.shuffle(&mut list);
            r.shuffle(&mut list);
            assert_eq!(list, twice, "seed {seed}");
            r.set_seed(seed + 1);
            assert_eq!(r.next_int(), after_reseed, "seed {seed}");
        }
    }

    #[test]
    fn shuffle_of_short_lists_draws_nothing() {
        let mut r = JavaRandom::new(7);
        let before = r.clone();
        let mut empty: [u8; 0] = [];
        r.shuffle(&mut empty);
        r.shuffle(&mut [1]);
        assert_eq!(r, before);
    }
}
