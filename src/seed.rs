//! The `--seed` option: an unsigned 64-bit seed, or a Java `int` for the Spark layouts.
//!
//! Spark's seeds are Java ints, and users copy them from Spark (`-1640531527`). For
//! `spark-v2`, a negative seed `s` is the same seed as `s + 2^32`: the same 32 bits, the same
//! filter bytes (`docs/FORMAT.md`). The native layouts' seeds are unsigned 64-bit numbers; a
//! negative seed there has no agreed meaning (Java longs? two's complement 32 bits?), so it is
//! refused rather than guessed. `spark-v1` filters have no seed: only 0.

use std::fmt;
use std::str::FromStr;

use crate::bloom::Layout;
use crate::error::{Error, Result};

/// A hash seed as the user wrote it: `-2^31..=2^64-1`; see the module docs for what each
/// layout accepts ([`Seed::for_layout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub struct Seed(i128);

impl Seed {
    /// The seed stored in a filter of `layout`: the number itself, or for a negative Spark
    /// seed its 32-bit two's complement. Errors name `--seed`.
    pub fn for_layout(self, layout: Layout) -> Result<u64> {
        if self.0 > u64::MAX as i128 || self.0 < i32::MIN as i128 {
            return Err(Error::param(
                "--seed",
                format!(
                    "{self} is out of range: 0..=18446744073709551615, or for spark-v2 a Java int (-2147483648..=4294967295)"
                ),
            ));
        }
        if self.0 >= 0 {
            return Ok(self.0 as u64);
        }
        match layout {
            Layout::SparkV2 => Ok(self.0 as i32 as u32 as u64),
            Layout::SparkV1 => Err(Error::param(
                "--seed",
                format!("{self} is not 0: spark-v1 filters have no seed (use spark-v2)"),
            )),
            other => Err(Error::param(
                "--seed",
                format!(
                    "{self} is negative: {other} seeds are unsigned (0..=18446744073709551615); negative seeds are Java ints, for the Spark layouts"
                ),
            )),
        }
    }
}

impl From<u64> for Seed {
    fn from(v: u64) -> Self {
        Seed(v as i128)
    }
}

impl From<i32> for Seed {
    fn from(v: i32) -> Self {
        Seed(v as i128)
    }
}

impl fmt::Display for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for Seed {
    type Err = String;

    /// Any integer; the range is checked by [`Seed::for_layout`], whose errors name the
    /// layout.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        s.trim().parse().map(Seed).map_err(|_| {
            format!(
                "{s:?} is not an integer (0..=18446744073709551615, or a Java int for spark-v2)"
            )
        })
    }
}

impl serde::Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match i64::try_from(self.0) {
            Ok(v) => s.serialize_i64(v),
            Err(_) => s.serialize_u64(self.0 as u64),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Seed;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer seed (0..=18446744073709551615, or a Java int for the Spark layouts)")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Seed, E> {
                Ok(Seed(v as i128))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Seed, E> {
                Ok(Seed::from(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Seed, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12, defect 3: a Java-int seed copied from Spark is accepted for the Spark
    /// layouts as the same 32 bits as its unsigned form, and refused where it means nothing.
    #[test]
    fn negative_seeds_are_java_ints_for_spark_only() {
        let s: Seed = "-1640531527".parse().unwrap();
        assert_eq!(s.for_layout(Layout::SparkV2).unwrap(), 2654435769);
        assert_eq!(
            Seed::from(2654435769u64)
                .for_layout(Layout::SparkV2)
                .unwrap(),
            2654435769
        );
        let m1: Seed = "-1".parse().unwrap();
        assert_eq!(m1.for_layout(Layout::SparkV2).unwrap(), u32::MAX as u64);
        let min: Seed = "-2147483648".parse().unwrap();
        assert_eq!(min.for_layout(Layout::SparkV2).unwrap(), 1 << 31);
        for l in [Layout::Blocked, Layout::Classic, Layout::SparkV1] {
            let e = m1.for_layout(l).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains("--seed"), "{e}");
        }
        assert_eq!(
            "18446744073709551615"
                .parse::<Seed>()
                .unwrap()
                .for_layout(Layout::Blocked)
                .unwrap(),
            u64::MAX
        );
        for out in ["-2147483649", "18446744073709551616"] {
            let e = out
                .parse::<Seed>()
                .unwrap()
                .for_layout(Layout::SparkV2)
                .unwrap_err();
            assert!(e.to_string().contains("out of range"), "{e}");
        }
        for bad in ["x", "1.5", ""] {
            assert!(bad.parse::<Seed>().is_err(), "{bad}");
        }
    }

    #[test]
    fn seeds_round_trip_through_toml_and_json() {
        #[derive(serde::Deserialize, serde::Serialize)]
        struct T {
            seed: Seed,
        }
        let t: T = toml::from_str("seed = -1640531527").unwrap();
        assert_eq!(t.seed, Seed::from(-1640531527i32));
        let t: T = toml::from_str("seed = \"18446744073709551615\"").unwrap();
        assert_eq!(t.seed, Seed::from(u64::MAX));
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"seed":18446744073709551615}"#
        );
        let t: T = toml::from_str("seed = -3000000000").unwrap();
        assert!(t.seed.for_layout(Layout::SparkV2).is_err());
    }
}
