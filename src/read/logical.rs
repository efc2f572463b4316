//! Parquet logical types that the Arrow types of the parquet crate's reader do not keep.
//!
//! Some column types of DuckDB (and other writers) come out of the reader as a plainer Arrow
//! type, and an output written from that type is no longer the input's type:
//!
//! | Parquet column | Arrow type read | without this module, written back as |
//! |---|---|---|
//! | `INTERVAL` (12 bytes: months, days, milliseconds) | `FixedSizeBinary(12)` (see below) | months lost |
//! | `UUID` (16 bytes) | `FixedSizeBinary(16)` | `BLOB` in DuckDB |
//! | `JSON` (text) | `Utf8` | `VARCHAR` in DuckDB |
//! | `TIME` adjusted to UTC (DuckDB's `TIMETZ`) | `Time64` | `TIME` in DuckDB |
//! | `GEOMETRY`, `GEOGRAPHY`, and GeoParquet's geometry columns (DuckDB's default) | `Binary` | `BLOB` |
//! | `VARIANT` | `Struct` of its encoded parts | a `STRUCT` of them |
//!
//! GeoParquet columns of a CRS other than the default keep their `geo` metadata instead
//! ([`geo_metadata`]): the output file describes them as the input did.
//!
//! INT96 timestamps are read in microseconds ([`int96_as_micros`]).
//!
//! The crate reads an `INTERVAL` as `Interval(DayTime)`, which has no months: a join that
//! passed `INTERVAL '1 month 2 days'` through wrote `2 days`. [`InputFile::open`] therefore
//! rewrites every `INTERVAL` leaf of a footer's schema to a plain 12-byte
//! `FIXED_LEN_BYTE_ARRAY` before the Arrow schema is derived from it, so the column is read
//! as its exact bytes.
//!
//! The same types inside a struct, list or map lose them the same way (DuckDB read a
//! `STRUCT(u UUID)` passed on as `STRUCT(u BLOB)`, and a `TIMETZ` in it as a `TIME`): such a
//! column's annotation is an [`Annotation::Nested`] naming each annotated field by its
//! [`Step`]s from the column (struct fields by name, list elements, map keys and values, in
//! every Parquet list layout), which the writer follows down its own schema.
//!
//! Each top-level column's [`Annotation`] is kept in [`InputFile`]; planning puts it on the
//! output schema's fields ([`annotate`], under the metadata key [`KEY`]) where every input
//! file that holds the column agrees on it, and the output writer ([`writer_schema`]) gives
//! those columns their Parquet logical type back. The key never reaches the written file's
//! embedded Arrow schema.
//!
//! [`InputFile::open`]: crate::plan::InputFile::open
//! [`InputFile`]: crate::plan::InputFile

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef, TimeUnit};
use parquet::basic::{
    ConvertedType, EdgeInterpolationAlgorithm, LogicalType, Type as PhysicalType,
};
use parquet::file::metadata::{FileMetaData, ParquetMetaData};
use parquet::schema::types::{BasicTypeInfo, SchemaDescriptor, Type, TypePtr};

/// The field metadata key of an output column's [`Annotation`].
pub const KEY: &str = "bloomjoin:parquet_type";

/// A Parquet logical type an Arrow type does not say.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type")]
pub enum Annotation {
    /// `INTERVAL`: 12 bytes (months, days, milliseconds, little-endian), read as
    /// `FixedSizeBinary(12)`.
    Interval,
    /// `UUID`: 16 bytes, read as `FixedSizeBinary(16)`.
    Uuid,
    /// `JSON`: text, read as `Utf8`.
    Json,
    /// `TIME` adjusted to UTC (DuckDB's `TIMETZ`, normalized to UTC when written), read as
    /// `Time32`/`Time64` like a local time of day.
    TimeUtc,
    /// `GEOMETRY` (well-known binary) of a coordinate reference system (`None`: the
    /// format's default, `OGC:CRS84`), read as `Binary`.
    Geometry {
        /// The CRS as the file gives it.
        crs: Option<String>,
    },
    /// `GEOGRAPHY` (well-known binary on a sphere or spheroid), read as `Binary`.
    Geography {
        /// The CRS as the file gives it.
        crs: Option<String>,
        /// The edge interpolation algorithm (`SPHERICAL`, `VINCENTY`, ...), if given.
        algorithm: Option<String>,
    },
    /// A GeoParquet geometry column (the file's `geo` metadata names it, well-known binary in
    /// a plain binary column, as DuckDB writes `GEOMETRY` by default) of a CRS other than the
    /// default: its CRS is a PROJJSON object that Parquet's `GEOMETRY` does not hold, so it is
    /// written as plain binary again, named in the output file's own `geo` metadata with the
    /// input's description of it ([`geo_metadata`]). (One of the default CRS is a
    /// [`Annotation::Geometry`].)
    GeoParquet {
        /// The GeoParquet version of the input's `geo` metadata.
        version: String,
        /// The column's entry in it (JSON: encoding, CRS, geometry types, ...).
        column: String,
    },
    /// `VARIANT`: a group of `metadata`, `value` and shredded `typed_value` columns, read as
    /// a `Struct` of them.
    Variant {
        /// The variant specification's version, if given.
        version: Option<i8>,
    },
    /// A struct, list or map column with annotated fields inside (a struct of a UUID, a list
    /// of intervals): each such field's path from the column, and its annotation.
    Nested {
        /// The annotated fields, in the order of the Parquet schema.
        fields: Vec<(Vec<Step>, Annotation)>,
    },
}

/// A step from a column down to a field nested in it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Step {
    /// A struct's field of this name.
    Field(String),
    /// A list's element (also a repeated field outside a list, which reads as a list of it).
    Element,
    /// A map's key.
    Key,
    /// A map's value.
    Value,
}

/// What a time-of-day key holds, for messages: times adjusted to UTC (`utc`, DuckDB's
/// `TIMETZ`) or local ones (`TIME`).
pub fn times_of_day(utc: bool) -> &'static str {
    match utc {
        true => "times of day adjusted to UTC (TIMETZ)",
        false => "local times of day (TIME)",
    }
}

/// The edge interpolation algorithms of `GEOGRAPHY`, by name.
const ALGORITHMS: [EdgeInterpolationAlgorithm; 5] = [
    EdgeInterpolationAlgorithm::SPHERICAL,
    EdgeInterpolationAlgorithm::VINCENTY,
    EdgeInterpolationAlgorithm::THOMAS,
    EdgeInterpolationAlgorithm::ANDOYER,
    EdgeInterpolationAlgorithm::KARNEY,
];

impl Annotation {
    /// Its name in messages.
    pub fn name(&self) -> &'static str {
        match self {
            Annotation::Interval => "INTERVAL",
            Annotation::Uuid => "UUID",
            Annotation::Json => "JSON",
            Annotation::TimeUtc => "TIME adjusted to UTC",
            Annotation::Geometry { .. } | Annotation::GeoParquet { .. } => "GEOMETRY",
            Annotation::Geography { .. } => "GEOGRAPHY",
            Annotation::Variant { .. } => "VARIANT",
            Annotation::Nested { .. } => "nested column with annotated fields",
        }
    }

    /// The annotation of a top-level Parquet column: its own, or a [`Annotation::Nested`] of
    /// the fields inside it that have one.
    fn of_top(t: &Type) -> Option<Annotation> {
        if let Some(a) = Annotation::of_column(t) {
            return Some(a);
        }
        let mut fields = Vec::new();
        nested_fields(t, &mut Vec::new(), &mut fields);
        (!fields.is_empty()).then_some(Annotation::Nested { fields })
    }

    /// The annotation of a top-level Parquet column, if it has one of ours.
    fn of_column(t: &Type) -> Option<Annotation> {
        let info = t.get_basic_info();
        if !t.is_primitive() {
            return match info.logical_type_ref() {
                Some(LogicalType::Variant(v)) => Some(Annotation::Variant {
                    version: v.specification_version,
                }),
                _ => None,
            };
        }
        match (info.logical_type_ref(), info.converted_type()) {
            (Some(LogicalType::Uuid), _) => Some(Annotation::Uuid),
            (Some(LogicalType::Json), _) | (None, ConvertedType::JSON) => Some(Annotation::Json),
            (Some(LogicalType::Time(t)), _) if t.is_adjusted_to_u_t_c => Some(Annotation::TimeUtc),
            (Some(LogicalType::Geometry(g)), _) => {
                Some(Annotation::Geometry { crs: g.crs.clone() })
            }
            (Some(LogicalType::Geography(g)), _) => Some(Annotation::Geography {
                crs: g.crs.clone(),
                algorithm: g.algorithm.map(|a| format!("{a:?}")),
            }),
            (_, ConvertedType::INTERVAL) => Some(Annotation::Interval),
            _ => None,
        }
    }
}

/// The annotations of the top-level columns of schema `root`, by name.
fn top_annotations(root: &Type) -> Vec<(String, Annotation)> {
    root.get_fields()
        .iter()
        .filter_map(|f| Annotation::of_top(f).map(|a| (f.name().to_string(), a)))
        .collect()
}

/// The footer `meta` with every `INTERVAL` leaf read as plain 12 bytes, and the annotations
/// of its top-level columns (by name; an `INTERVAL` among them).
pub fn read_footer(meta: ParquetMetaData) -> (ParquetMetaData, Vec<(String, Annotation)>) {
    let descr = meta.file_metadata().schema_descr();
    let annotations = top_annotations(descr.root_schema());
    let geo: Vec<(String, Annotation)> = geoparquet(&meta)
        .into_iter()
        .filter(|(c, _)| {
            !annotations.iter().any(|(a, _)| a == c)
                && descr.columns().iter().any(|l| {
                    l.path().parts() == [c.as_str()]
                        && l.physical_type() == PhysicalType::BYTE_ARRAY
                })
        })
        .collect();
    let mut annotations = annotations;
    annotations.extend(geo);
    let has_interval = descr
        .columns()
        .iter()
        .any(|c| c.converted_type() == ConvertedType::INTERVAL);
    if !has_interval {
        return (meta, annotations);
    }
    let root = plain_intervals(&descr.root_schema_ptr());
    let fm = meta.file_metadata();
    let file_metadata = FileMetaData::new(
        fm.version(),
        fm.num_rows(),
        fm.created_by().map(str::to_string),
        fm.key_value_metadata().cloned(),
        Arc::new(SchemaDescriptor::new(root)),
        fm.column_orders().cloned(),
    );
    let mut builder = meta.into_builder();
    let row_groups = builder.take_row_groups();
    let page_index = builder.take_page_index();
    let meta = parquet::file::metadata::ParquetMetaDataBuilder::new(file_metadata)
        .set_row_groups(row_groups)
        .set_page_index(page_index)
        .build();
    (meta, annotations)
}

/// The geometry columns of a GeoParquet file (its `geo` key-value metadata, version 1):
/// those of well-known binary, each a [`Annotation::Geometry`] of the default CRS
/// (`OGC:CRS84`) when it gives none, else a [`Annotation::GeoParquet`].
fn geoparquet(meta: &ParquetMetaData) -> Vec<(String, Annotation)> {
    let Some(geo) = meta
        .file_metadata()
        .key_value_metadata()
        .and_then(|kv| kv.iter().find(|e| e.key == "geo"))
        .and_then(|e| e.value.as_deref())
        .and_then(|v| serde_json::from_str::<serde_json::Value>(v).ok())
    else {
        return Vec::new();
    };
    let Some(columns) = geo.get("columns").and_then(|c| c.as_object()) else {
        return Vec::new();
    };
    let version = geo
        .get("version")
        .and_then(|v| v.as_str())
        .unwrap_or("1.0.0")
        .to_string();
    columns
        .iter()
        .filter(|(_, c)| {
            c.get("encoding")
                .and_then(|e| e.as_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("WKB"))
        })
        .map(|(name, c)| {
            // GeoParquet's default CRS, said as Parquet says it (a `GEOMETRY` without a CRS
            // means the same, but DuckDB reads it as another type).
            let a = match c.get("crs") {
                None => Annotation::Geometry {
                    crs: Some("OGC:CRS84".into()),
                },
                Some(_) => Annotation::GeoParquet {
                    version: version.clone(),
                    column: c.to_string(),
                },
            };
            (name.clone(), a)
        })
        .collect()
}

/// The element of list group `pt` (of `LIST` type, or a list of the layouts before it), by
/// Parquet's rules: its one repeated field is the element when that is a leaf, a group of
/// several fields, or a group named `array` or `<list>_tuple`; otherwise that field's one
/// field is. `None` when `pt` is not a group of one field.
fn list_element(pt: &Type) -> Option<TypePtr> {
    let Type::GroupType { fields, .. } = pt else {
        return None;
    };
    let [rep] = fields.as_slice() else {
        return None;
    };
    Some(match rep.as_ref() {
        Type::GroupType { fields, .. }
            if fields.len() == 1
                && rep.name() != "array"
                && rep.name() != format!("{}_tuple", pt.name()) =>
        {
            Arc::clone(&fields[0])
        }
        _ => Arc::clone(rep),
    })
}

/// Push onto `out` the annotated fields inside group `t` (at `path` from the top-level
/// column), walking structs, lists (every Parquet layout, as the crate reads them) and maps
/// as the parquet crate makes Arrow types of them.
fn nested_fields(t: &Type, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Annotation)>) {
    let Type::GroupType { basic_info, fields } = t else {
        return;
    };
    let visit = |f: &Type, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, Annotation)>| {
        match Annotation::of_column(f) {
            Some(a) => out.push((path.clone(), a)),
            None => nested_fields(f, path, out),
        }
    };
    let list = matches!(basic_info.logical_type_ref(), Some(LogicalType::List))
        || basic_info.converted_type() == ConvertedType::LIST;
    let map = matches!(basic_info.logical_type_ref(), Some(LogicalType::Map))
        || matches!(
            basic_info.converted_type(),
            ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE
        );
    if list {
        if let Some(element) = list_element(t) {
            path.push(Step::Element);
            visit(&element, path, out);
            path.pop();
        }
        return;
    }
    if map {
        if let [kv] = fields.as_slice() {
            if let Type::GroupType { fields: kv, .. } = kv.as_ref() {
                if let [k, v] = kv.as_slice() {
                    for (step, f) in [(Step::Key, k), (Step::Value, v)] {
                        path.push(step);
                        visit(f, path, out);
                        path.pop();
                    }
                }
            }
        }
        return;
    }
    for f in fields {
        path.push(Step::Field(f.name().to_string()));
        // A repeated field outside a list is read as a list of it.
        let repeated = f.get_basic_info().has_repetition()
            && f.get_basic_info().repetition() == parquet::basic::Repetition::REPEATED;
        if repeated {
            path.push(Step::Element);
        }
        visit(f, path, out);
        if repeated {
            path.pop();
        }
        path.pop();
    }
}

/// `t` with every `INTERVAL` leaf made a plain `FIXED_LEN_BYTE_ARRAY` of its length.
fn plain_intervals(t: &TypePtr) -> TypePtr {
    match t.as_ref() {
        Type::PrimitiveType {
            basic_info,
            physical_type,
            type_length,
            ..
        } if basic_info.converted_type() == ConvertedType::INTERVAL => Arc::new(
            leaf(basic_info, *physical_type, *type_length)
                .build()
                .expect("a fixed-length leaf without a logical type"),
        ),
        Type::PrimitiveType { .. } => Arc::clone(t),
        Type::GroupType { basic_info, fields } => Arc::new(Type::GroupType {
            basic_info: basic_info.clone(),
            fields: fields.iter().map(plain_intervals).collect(),
        }),
    }
}

/// A builder of the leaf `info` names, of `physical` type and `length`, with its repetition
/// and field id and no logical type: a leaf as it is, its annotation to be set or left out.
fn leaf(
    info: &BasicTypeInfo,
    physical: PhysicalType,
    length: i32,
) -> parquet::schema::types::PrimitiveTypeBuilder<'_> {
    let b = Type::primitive_type_builder(info.name(), physical)
        .with_length(length)
        .with_id(info.has_id().then(|| info.id()));
    match info.has_repetition() {
        true => b.with_repetition(info.repetition()),
        false => b,
    }
}

/// `schema` (a file's, as the reader derives it) with each top-level column of
/// `annotations` carrying its annotation; `None` when there is none.
pub fn annotated_schema(
    schema: &SchemaRef,
    annotations: &[(String, Annotation)],
) -> Option<SchemaRef> {
    if annotations.is_empty() {
        return None;
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let a = annotations
                .iter()
                .find(|(c, _)| c == f.name())
                .map(|(_, a)| a.clone());
            match a {
                Some(a) => annotate(f.as_ref().clone(), Some(a)),
                None => f.as_ref().clone(),
            }
        })
        .collect();
    Some(Arc::new(Schema::new_with_metadata(
        fields,
        schema.metadata().clone(),
    )))
}

/// The Arrow schema `schema` of the file of footer `meta` with its INT96 timestamps read in
/// microseconds, when the file has some and no embedded Arrow schema says their unit; `None`
/// otherwise.
///
/// The parquet crate reads an INT96 (the legacy timestamp Spark, Hive and Impala write) as
/// `Timestamp(ns)`, whose `i64` holds only the years 1677 to 2262: `9999-12-31`, the "open
/// end" of many warehouse tables, came out as a date in 1816, and such keys met nothing.
/// DuckDB and Spark read INT96 in microseconds. A file whose embedded Arrow schema (pyarrow's)
/// gives the column a unit is read in that unit, as the writer asked.
pub fn int96_as_micros(meta: &ParquetMetaData, schema: &SchemaRef) -> Option<SchemaRef> {
    let fm = meta.file_metadata();
    let descr = fm.schema_descr();
    if !descr
        .columns()
        .iter()
        .any(|c| c.physical_type() == PhysicalType::INT96)
    {
        return None;
    }
    if fm
        .key_value_metadata()
        .is_some_and(|kv| kv.iter().any(|e| e.key == "ARROW:schema"))
    {
        return None;
    }
    let root = descr.root_schema();
    let mut changed = false;
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let pt = root.get_fields().iter().find(|t| t.name() == f.name());
            match pt.and_then(|pt| micros(pt, f.data_type())) {
                Some(dt) => {
                    changed = true;
                    f.as_ref().clone().with_data_type(dt)
                }
                None => f.as_ref().clone(),
            }
        })
        .collect();
    changed.then(|| Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())))
}

/// Arrow type `dt`, which the crate derived from Parquet type `pt`, with each INT96
/// timestamp in it in microseconds; `None` when it has none. Structs, lists (both Parquet
/// list layouts) and maps are walked.
fn micros(pt: &Type, dt: &DataType) -> Option<DataType> {
    let field = |pt: &Type, f: &FieldRef| -> Option<FieldRef> {
        micros(pt, f.data_type()).map(|t| Arc::new(f.as_ref().clone().with_data_type(t)))
    };
    // A map's one repeated child, its key-value group.
    let repeated = |pt: &Type| -> Option<TypePtr> {
        match pt {
            Type::GroupType { fields, .. } if fields.len() == 1 => Some(Arc::clone(&fields[0])),
            _ => None,
        }
    };
    match (pt, dt) {
        (
            Type::PrimitiveType {
                physical_type: PhysicalType::INT96,
                ..
            },
            DataType::Timestamp(TimeUnit::Nanosecond, tz),
        ) => Some(DataType::Timestamp(TimeUnit::Microsecond, tz.clone())),
        (Type::GroupType { fields, .. }, DataType::Struct(children)) => {
            let new: Vec<Option<FieldRef>> = children
                .iter()
                .map(|c| {
                    fields
                        .iter()
                        .find(|t| t.name() == c.name())
                        .and_then(|t| field(t, c))
                })
                .collect();
            new.iter().any(Option::is_some).then(|| {
                DataType::Struct(
                    children
                        .iter()
                        .zip(new)
                        .map(|(c, n)| n.unwrap_or_else(|| Arc::clone(c)))
                        .collect(),
                )
            })
        }
        // A repeated leaf outside a list group: a list of it.
        (Type::PrimitiveType { .. }, DataType::List(f)) => field(pt, f).map(DataType::List),
        (Type::GroupType { .. }, DataType::List(f) | DataType::LargeList(f)) => {
            let element = list_element(pt)?;
            let f = field(&element, f)?;
            Some(match dt {
                DataType::LargeList(_) => DataType::LargeList(f),
                _ => DataType::List(f),
            })
        }
        (Type::GroupType { .. }, DataType::Map(entries, sorted)) => {
            let rep = repeated(pt)?;
            field(&rep, entries).map(|e| DataType::Map(e, *sorted))
        }
        _ => None,
    }
}

/// `field` carrying `annotation` (or none) in its metadata.
pub fn annotate(field: Field, annotation: Option<Annotation>) -> Field {
    let mut metadata = field.metadata().clone();
    match annotation {
        Some(a) => metadata.insert(
            KEY.to_string(),
            serde_json::to_string(&a).expect("an annotation serializes"),
        ),
        None => metadata.remove(KEY),
    };
    field.with_metadata(metadata)
}

/// The annotation `field` carries.
pub fn annotation(field: &Field) -> Option<Annotation> {
    field
        .metadata()
        .get(KEY)
        .and_then(|s| serde_json::from_str(s).ok())
}

/// The GeoParquet `geo` metadata of an output file of `schema`: the columns annotated
/// [`Annotation::GeoParquet`], each described as its input described it, under its output
/// name (the first of them the primary column); `None` when there are none.
pub fn geo_metadata(schema: &Schema) -> Option<String> {
    let mut version = None;
    let mut columns = serde_json::Map::new();
    for f in schema.fields() {
        if let Some(Annotation::GeoParquet { version: v, column }) = annotation(f) {
            let entry = serde_json::from_str(&column).ok()?;
            version.get_or_insert(v);
            columns.insert(f.name().clone(), entry);
        }
    }
    let primary = columns.keys().next()?.clone();
    let geo = serde_json::json!({
        "version": version?,
        "primary_column": primary,
        "columns": columns,
    });
    Some(geo.to_string())
}

/// For a writer of `schema` (with the writer's `coerce_types`): when some field carries an
/// annotation, the schema without the annotations (for the file's embedded Arrow schema) and
/// the Parquet schema with each annotated top-level column's logical type restored. `None`
/// when no field carries one.
pub fn writer_schema(
    schema: &Schema,
    coerce_types: bool,
) -> Option<parquet::errors::Result<(SchemaRef, SchemaDescriptor)>> {
    let annotated: HashMap<&str, Annotation> = schema
        .fields()
        .iter()
        .filter_map(|f| annotation(f).map(|a| (f.name().as_str(), a)))
        .collect();
    if annotated.is_empty() {
        return None;
    }
    let plain = Arc::new(Schema::new_with_metadata(
        schema
            .fields()
            .iter()
            .map(|f| annotate(f.as_ref().clone(), None))
            .collect::<Vec<_>>(),
        schema.metadata().clone(),
    ));
    Some(
        parquet::arrow::ArrowSchemaConverter::new()
            .with_coerce_types(coerce_types)
            .convert(&plain)
            .and_then(|descr| {
                let root = descr.root_schema();
                let fields = root
                    .get_fields()
                    .iter()
                    .map(|f| match annotated.get(f.name()) {
                        Some(a) => restore(f, a),
                        None => Ok(Arc::clone(f)),
                    })
                    .collect::<parquet::errors::Result<Vec<_>>>()?;
                let root = Type::group_type_builder(root.name())
                    .with_fields(fields)
                    .build()?;
                Ok((plain, SchemaDescriptor::new(Arc::new(root))))
            }),
    )
}

/// Column `t` (as the converter made it) with `a`'s logical type, where its physical type
/// can hold it; otherwise `t` as it is.
fn restore(t: &TypePtr, a: &Annotation) -> parquet::errors::Result<TypePtr> {
    if let Annotation::Nested { fields } = a {
        return fields
            .iter()
            .try_fold(Arc::clone(t), |t, (path, a)| restore_at(&t, path, a));
    }
    let info = t.get_basic_info();
    if let Type::GroupType { fields, .. } = t.as_ref() {
        let Annotation::Variant { version } = a else {
            return Ok(Arc::clone(t));
        };
        let mut b = Type::group_type_builder(info.name())
            .with_fields(fields.clone())
            .with_id(info.has_id().then(|| info.id()))
            .with_logical_type(Some(LogicalType::variant(*version)));
        if info.has_repetition() {
            b = b.with_repetition(info.repetition());
        }
        return Ok(Arc::new(b.build()?));
    }
    let Type::PrimitiveType {
        physical_type,
        type_length,
        ..
    } = t.as_ref()
    else {
        return Ok(Arc::clone(t));
    };
    let b = leaf(info, *physical_type, *type_length);
    let binary = *physical_type == PhysicalType::BYTE_ARRAY;
    let b = match (a, physical_type, info.logical_type_ref()) {
        (Annotation::Interval, PhysicalType::FIXED_LEN_BYTE_ARRAY, _) if *type_length == 12 => {
            b.with_converted_type(ConvertedType::INTERVAL)
        }
        (Annotation::Uuid, PhysicalType::FIXED_LEN_BYTE_ARRAY, _) if *type_length == 16 => {
            b.with_logical_type(Some(LogicalType::Uuid))
        }
        (Annotation::Json, PhysicalType::BYTE_ARRAY, Some(LogicalType::String)) => {
            b.with_logical_type(Some(LogicalType::Json))
        }
        (Annotation::TimeUtc, _, Some(LogicalType::Time(t))) => {
            b.with_logical_type(Some(LogicalType::time(true, t.unit)))
        }
        (Annotation::Geometry { crs }, _, None) if binary => {
            b.with_logical_type(Some(LogicalType::geometry(crs.clone())))
        }
        (Annotation::Geography { crs, algorithm }, _, None) if binary => {
            let algorithm = algorithm
                .as_ref()
                .and_then(|n| ALGORITHMS.into_iter().find(|a| &format!("{a:?}") == n));
            b.with_logical_type(Some(LogicalType::geography(crs.clone(), algorithm)))
        }
        _ => return Ok(Arc::clone(t)),
    };
    Ok(Arc::new(b.build()?))
}

/// Column `t` (as the converter made it) with the field at `path` in it restored to `a`'s
/// logical type; `t` as it is where the path leads nowhere.
///
/// The converter writes a list as a `LIST` group around a repeated group around the element,
/// and a map as a `MAP` group around a repeated key-value group.
fn restore_at(t: &TypePtr, path: &[Step], a: &Annotation) -> parquet::errors::Result<TypePtr> {
    let Some((step, rest)) = path.split_first() else {
        return restore(t, a);
    };
    let Type::GroupType { fields, .. } = t.as_ref() else {
        return Ok(Arc::clone(t));
    };
    // The group `g` with its `i`th field replaced by `f`.
    let with = |g: &TypePtr, i: usize, f: TypePtr| -> TypePtr {
        match g.as_ref() {
            Type::GroupType { basic_info, fields } => {
                let mut fields = fields.clone();
                fields[i] = f;
                Arc::new(Type::GroupType {
                    basic_info: basic_info.clone(),
                    fields,
                })
            }
            Type::PrimitiveType { .. } => Arc::clone(g),
        }
    };
    let (i, child) = match step {
        Step::Field(name) => {
            let Some(i) = fields.iter().position(|f| f.name() == name) else {
                return Ok(Arc::clone(t));
            };
            (i, restore_at(&fields[i], rest, a)?)
        }
        Step::Element | Step::Key | Step::Value => {
            let ([rep], Some(inner)) = (
                fields.as_slice(),
                fields.first().and_then(|f| match f.as_ref() {
                    Type::GroupType { fields, .. } => Some(fields),
                    Type::PrimitiveType { .. } => None,
                }),
            ) else {
                return Ok(Arc::clone(t));
            };
            let j = match (step, inner.len()) {
                (Step::Element, 1) | (Step::Key, 2) => 0,
                (Step::Value, 2) => 1,
                _ => return Ok(Arc::clone(t)),
            };
            (0, with(rep, j, restore_at(&inner[j], rest, a)?))
        }
    };
    Ok(with(t, i, child))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{ArrayRef, FixedSizeBinaryArray, RecordBatch, StringArray};
    use arrow::datatypes::DataType;
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
    use parquet::arrow::arrow_writer::ArrowWriterOptions;
    use parquet::arrow::ArrowWriter;
    use parquet::file::reader::{FileReader, SerializedFileReader};

    /// Write `batch` with annotations restored, read the footer back: the leaves' logical
    /// types, and the Arrow schema our reader derives from it.
    fn round_trip(batch: &RecordBatch) -> (Vec<(String, Annotation)>, SchemaRef, Vec<u8>) {
        let (plain, descr) = writer_schema(&batch.schema(), true).unwrap().unwrap();
        let mut buf = Vec::new();
        let options = ArrowWriterOptions::new()
            .with_properties(
                parquet::file::properties::WriterProperties::builder()
                    .set_coerce_types(true)
                    .build(),
            )
            .with_parquet_schema(descr);
        let mut w = ArrowWriter::try_new_with_options(&mut buf, plain, options).unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
        let reader = SerializedFileReader::new(bytes::Bytes::from(buf.clone())).unwrap();
        let (meta, annotations) = read_footer(reader.metadata().clone());
        let schema =
            ArrowReaderMetadata::try_new(Arc::new(meta), ArrowReaderOptions::new()).unwrap();
        (annotations, Arc::clone(schema.schema()), buf)
    }

    #[test]
    fn annotated_columns_are_written_with_their_logical_types_and_read_back_exactly() {
        // 1 month, 2 days, 3,500 ms: the months are what Interval(DayTime) would drop.
        let interval: Vec<u8> = [1u32, 2, 3_500]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let uuid = [7u8; 16];
        let schema = Arc::new(Schema::new(vec![
            annotate(
                Field::new("iv", DataType::FixedSizeBinary(12), true),
                Some(Annotation::Interval),
            ),
            annotate(
                Field::new("u", DataType::FixedSizeBinary(16), true),
                Some(Annotation::Uuid),
            ),
            annotate(
                Field::new("j", DataType::Utf8, true),
                Some(Annotation::Json),
            ),
            Field::new("plain", DataType::FixedSizeBinary(12), true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(FixedSizeBinaryArray::try_from_iter([interval.clone()].into_iter()).unwrap()),
            Arc::new(FixedSizeBinaryArray::try_from_iter([uuid].into_iter()).unwrap()),
            Arc::new(StringArray::from(vec!["{\"a\":1}"])),
            Arc::new(FixedSizeBinaryArray::try_from_iter([interval.clone()].into_iter()).unwrap()),
        ];
        let batch = RecordBatch::try_new(schema, columns).unwrap();
        let (annotations, read, buf) = round_trip(&batch);
        assert_eq!(
            annotations,
            vec![
                ("iv".to_string(), Annotation::Interval),
                ("u".to_string(), Annotation::Uuid),
                ("j".to_string(), Annotation::Json),
            ]
        );
        // The interval is read as its 12 bytes, not as Interval(DayTime).
        assert_eq!(read.field(0).data_type(), &DataType::FixedSizeBinary(12));
        // No annotation key in the file's embedded Arrow schema.
        assert!(!String::from_utf8_lossy(&buf).contains(KEY));
        // The values read back through the rewritten footer are the bytes written.
        let reader =
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::new_with_metadata(
                bytes::Bytes::from(buf.clone()),
                ArrowReaderMetadata::try_new(
                    Arc::new(
                        read_footer(
                            SerializedFileReader::new(bytes::Bytes::from(buf))
                                .unwrap()
                                .metadata()
                                .clone(),
                        )
                        .0,
                    ),
                    ArrowReaderOptions::new(),
                )
                .unwrap(),
            )
            .build()
            .unwrap();
        let got = reader.into_iter().next().unwrap().unwrap();
        let iv = got
            .column(0)
            .as_any()
            .downcast_ref::<FixedSizeBinaryArray>()
            .unwrap();
        assert_eq!(iv.value(0), &interval[..]);
    }

    #[test]
    fn annotated_fields_inside_structs_lists_and_maps_are_found_and_restored() {
        // Every list layout the crate reads: three-level, two-level with a repeated leaf, the
        // repeated group named `array` or `<list>_tuple` (the element itself), and a repeated
        // field outside a list.
        let message = "
            message m {
              optional group st {
                optional fixed_len_byte_array(16) u (UUID);
                optional group inner { optional binary j (JSON); optional int32 n; }
              }
              optional group l3 (LIST) {
                repeated group list { optional fixed_len_byte_array(12) element (INTERVAL); }
              }
              optional group l2 (LIST) { repeated fixed_len_byte_array(16) u (UUID); }
              optional group la (LIST) {
                repeated group array { optional fixed_len_byte_array(16) u (UUID); }
              }
              optional group lt (LIST) {
                repeated group lt_tuple { optional int64 t (TIME(MICROS,true)); }
              }
              optional group mp (MAP) {
                repeated group key_value {
                  required binary key (UTF8);
                  optional int64 value (TIME(MICROS,true));
                }
              }
              optional group rep { repeated fixed_len_byte_array(16) r (UUID); }
              optional group none { optional int32 a; }
              optional int32 plain;
            }";
        let root = Arc::new(parquet::schema::parser::parse_message_type(message).unwrap());
        let found = top_annotations(&root);
        let nested = |fields: Vec<(Vec<Step>, Annotation)>| Annotation::Nested { fields };
        let field = |n: &str| Step::Field(n.to_string());
        let want = vec![
            (
                "st".to_string(),
                nested(vec![
                    (vec![field("u")], Annotation::Uuid),
                    (vec![field("inner"), field("j")], Annotation::Json),
                ]),
            ),
            (
                "l3".into(),
                nested(vec![(vec![Step::Element], Annotation::Interval)]),
            ),
            (
                "l2".into(),
                nested(vec![(vec![Step::Element], Annotation::Uuid)]),
            ),
            (
                "la".into(),
                nested(vec![(vec![Step::Element, field("u")], Annotation::Uuid)]),
            ),
            (
                "lt".into(),
                nested(vec![(vec![Step::Element, field("t")], Annotation::TimeUtc)]),
            ),
            (
                "mp".into(),
                nested(vec![(vec![Step::Value], Annotation::TimeUtc)]),
            ),
            (
                "rep".into(),
                nested(vec![(vec![field("r"), Step::Element], Annotation::Uuid)]),
            ),
        ];
        assert_eq!(found, want);
        // The Arrow schema the reader derives (intervals as their bytes), annotated, written:
        // the writer's Parquet schema (three-level lists) has the same annotations.
        let descr = SchemaDescriptor::new(plain_intervals(&root));
        let arrow = Arc::new(parquet::arrow::parquet_to_arrow_schema(&descr, None).unwrap());
        let annotated = annotated_schema(&arrow, &found).unwrap();
        let (plain, written) = writer_schema(&annotated, true).unwrap().unwrap();
        assert!(plain.fields().iter().all(|f| annotation(f).is_none()));
        assert_eq!(top_annotations(written.root_schema()), want);
        // And the annotation goes through field metadata and back.
        assert_eq!(annotation(annotated.field(0)), Some(want[0].1.clone()));
    }

    #[test]
    fn geometries_geographies_and_variants_keep_their_logical_types() {
        use arrow::array::{BinaryArray, StructArray};
        let wkb: &[u8] = &[
            1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64,
        ];
        let variant_fields = arrow::datatypes::Fields::from(vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
        ]);
        let geometry = Annotation::Geometry {
            crs: Some("srid:4326".into()),
        };
        let geography = Annotation::Geography {
            crs: None,
            algorithm: Some("VINCENTY".into()),
        };
        let variant = Annotation::Variant { version: Some(1) };
        let schema = Arc::new(Schema::new(vec![
            annotate(
                Field::new("g", DataType::Binary, true),
                Some(geometry.clone()),
            ),
            annotate(
                Field::new("h", DataType::Binary, true),
                Some(geography.clone()),
            ),
            annotate(
                Field::new("v", DataType::Struct(variant_fields.clone()), true),
                Some(variant.clone()),
            ),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(BinaryArray::from(vec![wkb])),
            Arc::new(BinaryArray::from(vec![wkb])),
            Arc::new(StructArray::new(
                variant_fields,
                vec![
                    Arc::new(BinaryArray::from(vec![&[1u8, 0, 0][..]])),
                    Arc::new(BinaryArray::from(vec![&[12u8, 7][..]])),
                ],
                None,
            )),
        ];
        let batch = RecordBatch::try_new(schema, columns).unwrap();
        let (annotations, _, _) = round_trip(&batch);
        assert_eq!(
            annotations,
            vec![
                ("g".to_string(), geometry),
                ("h".to_string(), geography),
                ("v".to_string(), variant),
            ]
        );
    }

    #[test]
    fn geoparquet_columns_are_geometries() {
        use arrow::array::BinaryArray;
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Binary, true),
            Field::new("b", DataType::Binary, true),
            Field::new("c", DataType::Binary, true),
        ]));
        let one = || Arc::new(BinaryArray::from(vec![&[1u8][..]])) as ArrayRef;
        let batch = RecordBatch::try_new(schema.clone(), vec![one(), one(), one()]).unwrap();
        let geo = r#"{"version":"1.0.0","primary_column":"a","columns":{"a":{"encoding":"WKB","geometry_types":[]},"b":{"encoding":"WKB","crs":{"id":{"authority":"EPSG","code":3857}}},"c":{"encoding":"point"}}}"#;
        let props = parquet::file::properties::WriterProperties::builder()
            .set_key_value_metadata(Some(vec![parquet::file::metadata::KeyValue::new(
                "geo".into(),
                geo.to_string(),
            )]))
            .build();
        let mut buf = Vec::new();
        let mut w = ArrowWriter::try_new(&mut buf, schema, Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let reader = SerializedFileReader::new(bytes::Bytes::from(buf)).unwrap();
        let (_, annotations) = read_footer(reader.metadata().clone());
        assert_eq!(
            annotations,
            vec![
                (
                    "a".to_string(),
                    Annotation::Geometry {
                        crs: Some("OGC:CRS84".into())
                    }
                ),
                (
                    "b".to_string(),
                    Annotation::GeoParquet {
                        version: "1.0.0".into(),
                        column:
                            r#"{"crs":{"id":{"authority":"EPSG","code":3857}},"encoding":"WKB"}"#
                                .into()
                    }
                ),
            ]
        );
        // An output of column b (renamed) describes it as the input did.
        let out = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            annotate(
                Field::new("b2", DataType::Binary, true),
                Some(annotations[1].1.clone()),
            ),
        ]);
        let written: serde_json::Value =
            serde_json::from_str(&geo_metadata(&out).unwrap()).unwrap();
        let input: serde_json::Value = serde_json::from_str(geo).unwrap();
        assert_eq!(written["version"], "1.0.0");
        assert_eq!(written["primary_column"], "b2");
        assert_eq!(written["columns"]["b2"], input["columns"]["b"]);
        assert_eq!(geo_metadata(&Schema::new(vec![out.field(0).clone()])), None);
    }

    #[test]
    fn int96_timestamps_are_microseconds_at_any_depth_and_int64_nanoseconds_stay() {
        let message = "message spark_schema {
            optional int96 a;
            optional int64 ns (TIMESTAMP(NANOS,false));
            optional group st { optional int96 t; optional int64 n; }
            optional group l3 (LIST) { repeated group list { optional int96 element; } }
            optional group ls (LIST) { repeated group list { optional group element { optional int96 t; } } }
            optional group l2 (LIST) { repeated int96 element; }
            optional group la (LIST) { repeated group array { optional int96 t; } }
            repeated int96 r;
            optional group m (MAP) { repeated group key_value { required binary key (STRING); optional int96 value; } }
        }";
        let root = Arc::new(parquet::schema::parser::parse_message_type(message).unwrap());
        let descr = SchemaDescriptor::new(Arc::clone(&root));
        let schema = parquet::arrow::parquet_to_arrow_schema(&descr, None).unwrap();
        let mut shown = Vec::new();
        for f in schema.fields() {
            let pt = root
                .get_fields()
                .iter()
                .find(|t| t.name() == f.name())
                .unwrap();
            let t = micros(pt, f.data_type());
            let text = format!("{}", t.as_ref().unwrap_or(f.data_type()));
            // No nanosecond timestamp is left but the INT64 one.
            assert_eq!(
                text.contains("(ns"),
                f.name() == "ns",
                "{}: {text}",
                f.name()
            );
            assert_eq!(t.is_none(), f.name() == "ns", "{}", f.name());
            shown.push(f.name().clone());
        }
        assert_eq!(shown, ["a", "ns", "st", "l3", "ls", "l2", "la", "r", "m"]);
    }

    #[test]
    fn fields_without_annotations_need_no_parquet_schema() {
        let schema = Schema::new(vec![Field::new("a", DataType::Int64, true)]);
        assert!(writer_schema(&schema, true).is_none());
        let f = annotate(
            Field::new("a", DataType::Utf8, true),
            Some(Annotation::Json),
        );
        assert_eq!(annotation(&f), Some(Annotation::Json));
        assert_eq!(annotation(&annotate(f, None)), None);
    }
}
