//! Numeric functions of the `--where` language, as DuckDB 2.0's (checked against DuckDB
//! 2.0.1):
//!
//! - `round(x[, n])`, `trunc(x[, n])`, `floor(x)`, `ceil(x)` (`ceiling`) and `sign(x)`. Of
//!   integers and decimals they are exact: `round` rounds half away from zero to `n` digits
//!   after the point (before it when `n` is negative), `trunc` toward zero; a decimal keeps
//!   its type's scale or fewer. DuckDB fails where the result overflows the argument's type
//!   (`round(127::TINYINT, -1)`); here it is the exact value. `floor` and `ceil` of an
//!   *integer* are DuckDB's DOUBLE (DuckDB has no integer `floor`), so `floor(i64)` rounds an
//!   integer beyond 2^53 as DuckDB does; of a whole number this language computed (`a + b`, a
//!   literal `5`), which DuckDB would type as an integer or a decimal as it was written, they
//!   are refused (it is whole already). Of a FLOAT or a DOUBLE these are C's `round`
//!   (half away from zero), `trunc`, `floor` and `ceil`, in the argument's type, and with `n`
//!   DuckDB's formula: `round(x * 10^n) / 10^n` in DOUBLE, `10^n` from the C library's `pow`
//!   (which is not correctly rounded for every `n`: `pow(10, 23)` is one unit above `1e23`);
//!   a result that is infinite or NaN gives `x` back, except that `round` with a negative `n`
//!   beyond DOUBLE's range (`0 * inf`) gives 0.
//!   For `round` with `0 <= n <= 22`, where `10^n` is exact, a product `x * 10^n` that is a
//!   tie in DOUBLE is rounded as the exact product is (`round(0.15, 1)` is 0.1, as 0.15 is
//!   below 3/20): measured on 40,000 values against DuckDB 2.0.1, which does this up to 22
//!   digits and not beyond.
//!   `sign` is a TINYINT: -1, 0 or 1 (0 for NaN and -0.0).
//! - DOUBLE functions: `sqrt`, `ln`, `log` (base 10), `log10`, `log2`, `log(b, x)`
//!   (`log10(x) / log10(b)`), `exp`, `power` (`pow`), `sin`, `cos`, `tan`, `cot`, `asin`,
//!   `acos`, `atan`, `atan2`, `degrees`, `radians`, and `pi()`. The argument is rounded once
//!   to a DOUBLE (as arithmetic's operands are), then the C library's function, which is the
//!   one DuckDB calls: outside a function's domain the result is NaN (`sqrt(-1)`, `ln(-1)`),
//!   `ln(0)` is `-inf`, and nothing fails. (`cbrt` is refused: the cube root Rust links is
//!   not the C library's, and differs from DuckDB's in the last bit on 44% of the integers
//!   the crosscheck tried.)
//! - `isnan`, `isinf` and `isfinite` of any number: a boolean (exact numbers are finite).
//! - A NULL argument (or `n`) gives NULL. Strings, booleans, dates and timestamps are refused
//!   with the argument named, as DuckDB refuses them.

use std::sync::Arc;

use arrow::array::{cast::AsArray, Array, ArrayRef, BooleanArray, Float64Array, PrimitiveArray};
use arrow::datatypes::*;

use super::arith::{self, Value};
use super::eval::{is_float, Reason};
use super::func::{describe, operand_array, Arg};

/// A numeric function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Math {
    /// `round(x, n)` (`n` is 0 without it; `None` is `round(x, NULL)`).
    Round(Option<i32>),
    /// `trunc(x, n)`.
    Trunc(Option<i32>),
    Floor,
    Ceil,
    Sign,
    /// A DOUBLE function of one argument.
    Double(F1),
    /// `power(x, y)`.
    Power,
    /// `log(b, x)`: the logarithm of `x` to the base `b`.
    LogBase,
    /// `atan2(y, x)`.
    Atan2,
    /// `isnan`, `isinf`, `isfinite`.
    Is(Class),
}

/// A DOUBLE function of one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum F1 {
    Sqrt,
    Ln,
    Log10,
    Log2,
    Exp,
    Sin,
    Cos,
    Tan,
    Cot,
    Asin,
    Acos,
    Atan,
    Degrees,
    Radians,
}

/// What `isnan`, `isinf` and `isfinite` ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Nan,
    Inf,
    Finite,
}

impl F1 {
    fn apply(self, x: f64) -> f64 {
        match self {
            F1::Sqrt => x.sqrt(),
            F1::Ln => x.ln(),
            F1::Log10 => x.log10(),
            F1::Log2 => x.log2(),
            F1::Exp => x.exp(),
            F1::Sin => x.sin(),
            F1::Cos => x.cos(),
            F1::Tan => x.tan(),
            F1::Cot => 1.0 / x.tan(),
            F1::Asin => x.asin(),
            F1::Acos => x.acos(),
            F1::Atan => x.atan(),
            F1::Degrees => x * (180.0 / std::f64::consts::PI),
            F1::Radians => x * (std::f64::consts::PI / 180.0),
        }
    }

    fn name(self) -> &'static str {
        match self {
            F1::Sqrt => "sqrt",
            F1::Ln => "ln",
            F1::Log10 => "log10",
            F1::Log2 => "log2",
            F1::Exp => "exp",
            F1::Sin => "sin",
            F1::Cos => "cos",
            F1::Tan => "tan",
            F1::Cot => "cot",
            F1::Asin => "asin",
            F1::Acos => "acos",
            F1::Atan => "atan",
            F1::Degrees => "degrees",
            F1::Radians => "radians",
        }
    }
}

impl Math {
    /// The function a name stands for, with the least and most arguments it takes (`round`
    /// and `trunc` are completed by the parser, which reads their `n`).
    pub(crate) fn named(name: &str) -> Option<(Math, usize, usize)> {
        let one = |f| Some((Math::Double(f), 1, 1));
        match name {
            "round" => Some((Math::Round(Some(0)), 1, 2)),
            "trunc" => Some((Math::Trunc(Some(0)), 1, 2)),
            "floor" => Some((Math::Floor, 1, 1)),
            "ceil" | "ceiling" => Some((Math::Ceil, 1, 1)),
            "sign" => Some((Math::Sign, 1, 1)),
            "sqrt" => one(F1::Sqrt),
            "ln" => one(F1::Ln),
            "log10" => one(F1::Log10),
            "log2" => one(F1::Log2),
            // log(x) is the base-10 logarithm, log(b, x) the base-b one (DuckDB's).
            "log" => Some((Math::Double(F1::Log10), 1, 2)),
            "exp" => one(F1::Exp),
            "sin" => one(F1::Sin),
            "cos" => one(F1::Cos),
            "tan" => one(F1::Tan),
            "cot" => one(F1::Cot),
            "asin" => one(F1::Asin),
            "acos" => one(F1::Acos),
            "atan" => one(F1::Atan),
            "degrees" => one(F1::Degrees),
            "radians" => one(F1::Radians),
            "power" | "pow" => Some((Math::Power, 2, 2)),
            "atan2" => Some((Math::Atan2, 2, 2)),
            "isnan" => Some((Math::Is(Class::Nan), 1, 1)),
            "isinf" => Some((Math::Is(Class::Inf), 1, 1)),
            "isfinite" => Some((Math::Is(Class::Finite), 1, 1)),
            _ => None,
        }
    }

    /// The name messages use.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Math::Round(_) => "round",
            Math::Trunc(_) => "trunc",
            Math::Floor => "floor",
            Math::Ceil => "ceil",
            Math::Sign => "sign",
            Math::Double(f) => f.name(),
            Math::Power => "power",
            Math::LogBase => "log",
            Math::Atan2 => "atan2",
            Math::Is(Class::Nan) => "isnan",
            Math::Is(Class::Inf) => "isinf",
            Math::Is(Class::Finite) => "isfinite",
        }
    }
}

/// `m(args)`.
pub(super) fn call(m: Math, args: Vec<Arg>) -> Result<Value, Reason> {
    let name = m.name();
    // Check every argument's type first: a NULL does not excuse a wrong type elsewhere.
    let mut null = matches!(m, Math::Round(None) | Math::Trunc(None));
    let mut kept: Vec<(ArrayRef, bool)> = Vec::with_capacity(args.len());
    for (o, what) in args {
        let Some((a, one)) = operand_array(o, &format!("{name}()"), &what)? else {
            null = true;
            continue;
        };
        let t = a.data_type();
        if arith::number(t).is_none() && !is_float(t) {
            return Err(format!(
                "{name}() takes a number, {what} is {}",
                describe(t)
            ));
        }
        if matches!(m, Math::Floor | Math::Ceil) && whole_of_unknown_kind(t) {
            return Err(format!(
                "{name}() of {what}, a whole number held as computed values and literals are: \
                 DuckDB gives {name}() of an integer as a DOUBLE and of a decimal exactly, and \
                 this value could be either (it is whole already: leave {name}() out, or CAST \
                 it to DOUBLE)"
            ));
        }
        kept.push((a, one));
    }
    if null {
        return Ok(Value::Null);
    }
    let one = kept.iter().all(|(_, one)| *one);
    let r = match m {
        Math::Round(Some(n)) => rounded(&kept[0].0, Rounding::Round, n)?,
        Math::Trunc(Some(n)) => rounded(&kept[0].0, Rounding::Trunc, n)?,
        Math::Floor => rounded(&kept[0].0, Rounding::Floor, 0)?,
        Math::Ceil => rounded(&kept[0].0, Rounding::Ceil, 0)?,
        Math::Round(None) | Math::Trunc(None) => unreachable!("NULL digits give NULL"),
        Math::Sign => sign(&kept[0].0)?,
        Math::Double(f) => Arc::new(doubles(&kept[0].0)?.unary::<_, Float64Type>(|x| f.apply(x))),
        Math::LogBase => binary(&kept[0], &kept[1], |b, x| x.log10() / b.log10())?,
        Math::Power => binary(&kept[0], &kept[1], f64::powf)?,
        Math::Atan2 => binary(&kept[0], &kept[1], f64::atan2)?,
        Math::Is(c) => class(&kept[0].0, c)?,
    };
    Ok(if one { Value::One(r) } else { Value::Rows(r) })
}

/// Whether an exact number of scale 0 is of a type this language gives to the whole numbers
/// it computes and to literals (a 38- or 76-digit decimal), where DuckDB would have an
/// integer or a decimal as the expression was written.
fn whole_of_unknown_kind(t: &DataType) -> bool {
    matches!(t, DataType::Decimal128(38, 0) | DataType::Decimal256(76, 0))
}

/// The values as DOUBLEs, each rounded once (arithmetic's conversion).
pub(super) fn doubles(a: &ArrayRef) -> Result<Float64Array, Reason> {
    Ok(arith::cast(a, &DataType::Float64)?
        .as_primitive::<Float64Type>()
        .clone())
}

/// `f(a, b)` in DOUBLEs, a literal's one value taken for every row.
fn binary(
    (a, a_one): &(ArrayRef, bool),
    (b, b_one): &(ArrayRef, bool),
    f: impl Fn(f64, f64) -> f64,
) -> Result<ArrayRef, Reason> {
    let (a, b) = (doubles(a)?, doubles(b)?);
    let r: Float64Array = match (a_one, b_one) {
        (true, false) if a.is_valid(0) => {
            let x = a.value(0);
            b.unary(|y| f(x, y))
        }
        (false, true) if b.is_valid(0) => {
            let y = b.value(0);
            a.unary(|x| f(x, y))
        }
        (true, false) => Float64Array::new_null(b.len()),
        (false, true) => Float64Array::new_null(a.len()),
        _ => arrow::compute::binary(&a, &b, f).map_err(|e| e.to_string())?,
    };
    Ok(Arc::new(r))
}

/// `isnan`, `isinf` or `isfinite`.
fn class(a: &ArrayRef, c: Class) -> Result<ArrayRef, Reason> {
    let test = |x: f64| match c {
        Class::Nan => x.is_nan(),
        Class::Inf => x.is_infinite(),
        Class::Finite => x.is_finite(),
    };
    let r: BooleanArray = if is_float(a.data_type()) {
        // A FLOAT is a NaN or an infinity exactly when its DOUBLE is.
        doubles(a)?.iter().map(|v| v.map(test)).collect()
    } else {
        // Exact numbers are finite.
        let keep = c == Class::Finite;
        (0..a.len())
            .map(|i| a.is_valid(i).then_some(keep))
            .collect()
    };
    Ok(Arc::new(r))
}

/// `sign(x)`: -1, 0 or 1 as a TINYINT (0 for NaN). An exact number's sign is its DOUBLE's:
/// rounding keeps the sign, and no decimal of up to 76 digits other than 0 rounds to 0.
fn sign(a: &ArrayRef) -> Result<ArrayRef, Reason> {
    Ok(Arc::new(doubles(a)?.unary::<_, Int8Type>(|x| {
        if x > 0.0 {
            1
        } else if x < 0.0 {
            -1
        } else {
            0
        }
    })))
}

/// How `rounded` rounds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    Round,
    Trunc,
    Floor,
    Ceil,
}

/// `x` rounded (`Round`, `Trunc`, `Floor`, `Ceil`) to `n` digits after the point.
fn rounded(a: &ArrayRef, how: Rounding, n: i32) -> Result<ArrayRef, Reason> {
    match a.data_type() {
        DataType::Float64 => Ok(Arc::new(float_rounded(
            a.as_primitive::<Float64Type>(),
            how,
            n,
            |x| x,
        ))),
        DataType::Float16 | DataType::Float32 => {
            let f = arith::cast(a, &DataType::Float32)?;
            Ok(Arc::new(float_rounded(
                f.as_primitive::<Float32Type>(),
                how,
                n,
                |x| x as f32,
            )))
        }
        t => {
            let (p, s) = arith::number(t).expect("checked to be a number");
            if matches!(how, Rounding::Floor | Rounding::Ceil) && s == 0 {
                if t.is_integer() {
                    // DuckDB has no floor or ceil of integers: they are its DOUBLE's.
                    return arith::cast(a, &DataType::Float64);
                }
                return Ok(Arc::clone(a));
            }
            exact_rounded(a, how, n, p, s)
        }
    }
}

/// Floats rounded as DuckDB rounds them: C's function of the value, or with `n` digits
/// DuckDB's formula in DOUBLE (see the module's notes), converted back with `back`.
fn float_rounded<T>(
    a: &PrimitiveArray<T>,
    how: Rounding,
    n: i32,
    back: impl Fn(f64) -> T::Native,
) -> PrimitiveArray<T>
where
    T: ArrowPrimitiveType,
    T::Native: Into<f64>,
{
    let f = |x: f64| match how {
        Rounding::Round => x.round(),
        Rounding::Trunc => x.trunc(),
        Rounding::Floor => x.floor(),
        Rounding::Ceil => x.ceil(),
    };
    if n == 0 || matches!(how, Rounding::Floor | Rounding::Ceil) {
        // C's function of the FLOAT itself is its function of the DOUBLE, converted back
        // exactly: the result is a whole number no larger than the value.
        return a.unary(|x| back(f(x.into())));
    }
    // The modifier comes from the C library's pow, as DuckDB's does.
    let modifier = 10f64.powf(f64::from(n.unsigned_abs()));
    // Up to 22 digits 10^n is exact, and DuckDB rounds a product that is a tie in DOUBLE as
    // the exact product is: 0.15 * 10 is 1.5 in DOUBLE, but 0.15 is below 3/20, so
    // round(0.15, 1) is 0.1.
    let exact_ties = how == Rounding::Round && (0..=22).contains(&n);
    a.unary(|x| {
        let x: f64 = x.into();
        if !x.is_finite() {
            return back(x);
        }
        let r = if n < 0 {
            f(x / modifier) * modifier
        } else {
            let scaled = x * modifier;
            let tie = exact_ties && (scaled - scaled.trunc()).abs() == 0.5;
            // The product's rounding error, exactly (a fused multiply-add rounds once).
            let below = tie && {
                let err = x.mul_add(modifier, -scaled);
                err != 0.0 && (err < 0.0) != (scaled < 0.0)
            };
            if below {
                scaled.trunc() / modifier
            } else {
                f(scaled) / modifier
            }
        };
        if r.is_finite() {
            back(r)
        } else if how == Rounding::Round && n < 0 && r.is_nan() {
            // 10^-n beyond DOUBLE's range: 0 * inf.
            back(0.0)
        } else {
            back(x)
        }
    })
}

/// An integer or a decimal of precision `p` and scale `s` rounded exactly to `n` digits
/// after the point: a decimal of scale `max(n, 0)` (the value itself when `n >= s`).
fn exact_rounded(a: &ArrayRef, how: Rounding, n: i32, p: u8, s: i8) -> Result<ArrayRef, Reason> {
    let s_ = i32::from(s);
    if n >= s_ {
        return Ok(Arc::clone(a));
    }
    // The digits dropped, and the zeros put back for a negative n.
    let drop = (s_ - n) as u32;
    let back = n.min(0).unsigned_abs();
    let scale = n.max(0) as i8;
    // One more digit holds a carry (99.5 rounds to 100).
    let wide = arith::decimal(p.saturating_add(1).min(76), s);
    let d = arith::cast(a, &wide)?;
    match d.data_type() {
        DataType::Decimal128(..) => {
            let r = exact::<Decimal128Type>(d.as_primitive(), how, drop, back)
                .with_precision_and_scale(38, scale)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(r))
        }
        _ => {
            let r = exact::<Decimal256Type>(d.as_primitive(), how, drop, back)
                .with_precision_and_scale(76, scale)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(r))
        }
    }
}

/// Raw decimal values with `drop` digits rounded off, times `10^back` (which fits: the
/// result is at most one unit above the value).
fn exact<T: DecimalType>(
    a: &PrimitiveArray<T>,
    how: Rounding,
    drop: u32,
    back: u32,
) -> PrimitiveArray<T>
where
    T::Native: ArrowNativeTypeOp + Ord,
{
    let ten = T::Native::usize_as(10);
    let Ok(unit) = ten.pow_checked(drop) else {
        // More digits than the type holds: every value is below half a unit of the place
        // kept, so all are 0 (DuckDB's too).
        return a.unary(|_| T::Native::ZERO);
    };
    let half = unit.div_wrapping(T::Native::usize_as(2));
    let times = ten.pow_wrapping(back);
    let (zero, one) = (T::Native::ZERO, T::Native::ONE);
    a.unary(|v| {
        let q = v.div_wrapping(unit);
        let r = v.mod_wrapping(unit);
        let q = match how {
            Rounding::Trunc => q,
            Rounding::Floor if r < zero => q.sub_wrapping(one),
            Rounding::Ceil if r > zero => q.add_wrapping(one),
            Rounding::Round if r >= half => q.add_wrapping(one),
            Rounding::Round if r <= half.neg_wrapping() => q.sub_wrapping(one),
            _ => q,
        };
        q.mul_wrapping(times)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(vals: &[Option<i128>], s: i8) -> ArrayRef {
        Arc::new(
            arrow::array::Decimal128Array::from(vals.to_vec())
                .with_precision_and_scale(10, s)
                .unwrap(),
        )
    }

    fn shown(a: &ArrayRef) -> Vec<String> {
        let s =
            arrow::util::display::ArrayFormatter::try_new(a.as_ref(), &Default::default()).unwrap();
        (0..a.len()).map(|i| s.value(i).to_string()).collect()
    }

    #[test]
    fn exact_rounding_is_half_away_from_zero_and_truncation_toward_zero() {
        let a = dec(
            &[Some(125), Some(-125), Some(124), Some(-999), None, Some(0)],
            2,
        );
        let r = |how, n| shown(&rounded(&a, how, n).unwrap());
        assert_eq!(
            r(Rounding::Round, 1),
            ["1.3", "-1.3", "1.2", "-10.0", "", "0.0"]
        );
        assert_eq!(
            r(Rounding::Trunc, 1),
            ["1.2", "-1.2", "1.2", "-9.9", "", "0.0"]
        );
        assert_eq!(r(Rounding::Floor, 0), ["1", "-2", "1", "-10", "", "0"]);
        assert_eq!(r(Rounding::Ceil, 0), ["2", "-1", "2", "-9", "", "0"]);
        assert_eq!(r(Rounding::Round, -1), ["0", "0", "0", "-10", "", "0"]);
        assert_eq!(
            r(Rounding::Round, 5),
            ["1.25", "-1.25", "1.24", "-9.99", "", "0.00"]
        );
        assert_eq!(r(Rounding::Round, -40), ["0", "0", "0", "0", "", "0"]);
    }

    #[test]
    fn float_rounding_follows_duckdbs_formula() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![1.255, 2.5, -2.5, 1e308, 0.15]));
        let r = |how, n| {
            rounded(&a, how, n)
                .unwrap()
                .as_primitive::<Float64Type>()
                .values()
                .to_vec()
        };
        // 1.255 * 100 is 125.49999999999999 in DOUBLE.
        assert_eq!(r(Rounding::Round, 2), [1.25, 2.5, -2.5, 1e308, 0.15]);
        assert_eq!(r(Rounding::Round, 0), [1.0, 3.0, -3.0, 1e308, 0.0]);
        assert_eq!(r(Rounding::Round, 1), [1.3, 2.5, -2.5, 1e308, 0.1]);
        assert_eq!(r(Rounding::Round, -400), [0.0; 5]);
        assert_eq!(r(Rounding::Trunc, -400), [1.255, 2.5, -2.5, 1e308, 0.15]);
    }
}
