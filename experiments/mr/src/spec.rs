//! The MRG input specification (`spec.yml`).
//!
//! Every scalar is read as its text: no YAML boolean or number conversion (`Yes`, `true` and `1.50`
//! stay as written). Unknown keys (`description`, ...) are ignored. Parameter lists keep their
//! declaration order.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use thiserror::Error;

use crate::constraint::{Constraint, ConstraintError, ParseMode};

/// The whole specification: one or more features.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub features: Vec<Feature>,
}

/// One query feature (e.g. `searchFlights`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feature {
    pub id: String,
    pub description: Option<String>,
    /// In declaration order.
    pub parameters: Vec<Parameter>,
    pub constraints: Vec<ConstraintDecl>,
    pub configuration: Configuration,
    pub execution: Option<Execution>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    pub name: String,
    /// As written (`string`, `String`, `integer`, `boolean`, `date`, ...).
    pub ty: Option<String>,
    /// The `enum` values, in order; `None` when the parameter has no `enum`.
    pub enum_values: Option<Vec<String>>,
    pub default: Option<String>,
    /// As written; see [`Parameter::is_required`].
    pub required: Option<String>,
    /// Extension: concrete values that fill `<TBD>` when relations are executed (`values:`).
    pub values: Vec<String>,
}

/// Extension: how to run a feature's queries against a live system over HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// URL with `{base}` standing for the system's base URL; test parameters become the query string.
    pub url: String,
    /// JSON pointer to the array of result items in a response.
    pub items: String,
    /// JSON pointer, inside one item, to its identity.
    pub item_id: String,
}

/// A constraint as written, parsed in both modes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintDecl {
    pub text: String,
    /// Whitespace removed from names and values, as the MRG tool does.
    pub compat: Constraint,
    /// Names and values trimmed, inner spaces kept.
    pub native: Constraint,
}

/// The metamorphic-testing configuration of a feature. All names refer to parameters of the feature.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Configuration {
    pub ordering_parameters: Vec<String>,
    pub conjunctive_filters: Vec<String>,
    pub disjunctive_filters: Vec<String>,
    pub disjoint_filters: Vec<DisjointFilter>,
    pub complete_filters: Vec<CompleteFilter>,
    pub limit_parameter: Option<String>,
    pub offset_parameter: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisjointFilter {
    pub parameter: String,
    /// The disjoint values: those listed, or (when `values` is absent) every `enum` value of the
    /// parameter (empty if it has no `enum`).
    pub values: Vec<String>,
    /// Whether `values` was written in the specification.
    pub explicit_values: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompleteFilter {
    pub parameter: String,
    pub all_value: AllValue,
}

/// The value of a complete filter meaning "all".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllValue {
    /// `all_value: empty`: the parameter absent means all.
    Empty,
    Value(String),
}

#[derive(Debug, Error)]
pub enum SpecError {
    #[error("{file}: cannot read: {source}", file = .file.display())]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
    /// The YAML does not parse or does not have the expected shape.
    #[error("{file}{loc}: {path}: {message}", file = .file.display(), loc = loc(*.line, *.column))]
    Yaml {
        file: PathBuf,
        path: String,
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },
    /// The YAML has the right shape but its content is wrong (unknown parameter, bad constraint...).
    #[error("{file}: {path}: {message}", file = .file.display())]
    Invalid {
        file: PathBuf,
        path: String,
        message: String,
    },
}

fn loc(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

impl Spec {
    /// Reads and checks a specification file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Spec, SpecError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        Spec::parse(&text, path)
    }

    /// Parses and checks specification text; `file` only names it in errors.
    pub fn parse(text: &str, file: impl AsRef<Path>) -> Result<Spec, SpecError> {
        let file = file.as_ref();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let de = serde_norway::Deserializer::from_str(text);
        let raw: RawSpec = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let (line, column) = match inner.location() {
                Some(l) => (Some(l.line()), Some(l.column())),
                None => (None, None),
            };
            let message = clean_message(&inner, &path);
            SpecError::Yaml {
                file: file.to_path_buf(),
                path,
                line,
                column,
                message,
            }
        })?;
        build(raw).map_err(|(path, message)| SpecError::Invalid {
            file: file.to_path_buf(),
            path,
            message,
        })
    }

    /// The feature with this id, compared case-insensitively.
    pub fn feature(&self, id: &str) -> Option<&Feature> {
        self.features.iter().find(|f| eq_id(&f.id, id))
    }
}

impl Feature {
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// Parameter names in declaration order.
    pub fn parameter_names(&self) -> impl Iterator<Item = &str> {
        self.parameters.iter().map(|p| p.name.as_str())
    }
}

impl Parameter {
    /// `required: true` (any case); everything else, or no `required`, is false.
    pub fn is_required(&self) -> bool {
        self.required
            .as_deref()
            .is_some_and(|r| r.trim().eq_ignore_ascii_case("true"))
    }
}

fn eq_id(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// The library's message without the leading "<path>: " and trailing " at line L column C" (both
/// reported separately).
fn clean_message(e: &serde_norway::Error, path: &str) -> String {
    let mut m = e.to_string();
    if let (Some(_), Some(i)) = (e.location(), m.rfind(" at line ")) {
        m.truncate(i);
    }
    match m.strip_prefix(path).and_then(|r| r.strip_prefix(": ")) {
        Some(rest) => rest.to_string(),
        None => m,
    }
}

// ---- Raw YAML shape ----

/// Any scalar, as its text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Scalar(String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scalar")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar(v))
            }
            // Formats that do not hand out the text of non-string scalars.
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        // serde_norway answers `deserialize_str` on any plain scalar with its source text.
        d.deserialize_str(V)
    }
}

/// A list that may also be written as `null` / left empty.
fn list<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

#[derive(Deserialize)]
#[serde(rename = "specification")]
struct RawSpec {
    #[serde(default, deserialize_with = "list")]
    features: Vec<RawFeature>,
}

#[derive(Deserialize)]
#[serde(rename = "feature")]
struct RawFeature {
    id: Option<Scalar>,
    description: Option<Scalar>,
    #[serde(default, deserialize_with = "list")]
    parameters: Vec<RawParameter>,
    #[serde(default, deserialize_with = "list")]
    constraints: Vec<RawConstraint>,
    configuration: Option<RawConfiguration>,
    execution: Option<RawExecution>,
}

#[derive(Deserialize)]
#[serde(rename = "execution")]
struct RawExecution {
    url: Option<Scalar>,
    items: Option<Scalar>,
    item_id: Option<Scalar>,
}

#[derive(Deserialize)]
#[serde(rename = "parameter")]
struct RawParameter {
    name: Option<Scalar>,
    #[serde(rename = "type")]
    ty: Option<Scalar>,
    #[serde(rename = "enum")]
    enum_values: Option<Vec<Scalar>>,
    default: Option<Scalar>,
    required: Option<Scalar>,
    #[serde(default, deserialize_with = "list")]
    values: Vec<Scalar>,
}

#[derive(Deserialize)]
#[serde(rename = "constraint")]
struct RawConstraint {
    constraint: Option<Scalar>,
    /// Misspelling found in MRG specifications.
    contraint: Option<Scalar>,
}

#[derive(Deserialize)]
#[serde(rename = "configuration")]
struct RawConfiguration {
    #[serde(default, deserialize_with = "list")]
    ordering_parameters: Vec<Scalar>,
    #[serde(default, deserialize_with = "list")]
    conjunctive_filters: Vec<Scalar>,
    #[serde(default, deserialize_with = "list")]
    disjunctive_filters: Vec<Scalar>,
    #[serde(default, deserialize_with = "list")]
    disjoint_filters: Vec<RawDisjoint>,
    #[serde(default, deserialize_with = "list")]
    complete_filters: Vec<RawComplete>,
    limit_parameter: Option<Scalar>,
    offset_parameter: Option<Scalar>,
}

#[derive(Deserialize)]
#[serde(rename = "disjoint filter")]
struct RawDisjoint {
    parameter: Option<Scalar>,
    values: Option<Vec<Scalar>>,
}

#[derive(Deserialize)]
#[serde(rename = "complete filter")]
struct RawComplete {
    parameter: Option<Scalar>,
    all_value: Option<Scalar>,
}

// ---- Checking ----

type Invalid = (String, String);

fn required(
    v: Option<Scalar>,
    path: impl FnOnce() -> String,
    what: &str,
) -> Result<String, Invalid> {
    match v {
        Some(Scalar(s)) if !s.trim().is_empty() => Ok(s),
        _ => Err((path(), format!("missing or empty `{what}`"))),
    }
}

fn build(raw: RawSpec) -> Result<Spec, Invalid> {
    if raw.features.is_empty() {
        return Err(("features".into(), "no features".into()));
    }
    let mut features: Vec<Feature> = Vec::new();
    for (fi, rf) in raw.features.into_iter().enumerate() {
        let fp = format!("features[{fi}]");
        let id = required(rf.id, || fp.clone(), "id")?;
        if features.iter().any(|f| eq_id(&f.id, &id)) {
            return Err((
                format!("{fp}.id"),
                format!("duplicate feature id {id:?} (ids ignore case)"),
            ));
        }
        let mut parameters: Vec<Parameter> = Vec::new();
        for (pi, rp) in rf.parameters.into_iter().enumerate() {
            let pp = format!("{fp}.parameters[{pi}]");
            let name = required(rp.name, || pp.clone(), "name")?;
            if parameters.iter().any(|p| p.name == name) {
                return Err((
                    format!("{pp}.name"),
                    format!("duplicate parameter {name:?}"),
                ));
            }
            parameters.push(Parameter {
                name,
                ty: rp.ty.map(|s| s.0),
                enum_values: rp.enum_values.map(|v| v.into_iter().map(|s| s.0).collect()),
                default: rp.default.map(|s| s.0),
                required: rp.required.map(|s| s.0),
                values: rp.values.into_iter().map(|s| s.0).collect(),
            });
        }
        let known = |path: String, name: &str| -> Result<(), Invalid> {
            if parameters.iter().any(|p| p.name == name) {
                Ok(())
            } else {
                Err((
                    path,
                    format!("{name:?} is not a parameter of feature {id:?}"),
                ))
            }
        };
        let mut constraints = Vec::new();
        for (ci, rc) in rf.constraints.into_iter().enumerate() {
            let cp = format!("{fp}.constraints[{ci}]");
            let text = match (rc.constraint, rc.contraint) {
                (Some(_), Some(_)) => {
                    return Err((cp, "both `constraint` and `contraint`".into()));
                }
                (Some(Scalar(s)), None) | (None, Some(Scalar(s))) => s,
                (None, None) => return Err((cp, "missing `constraint`".into())),
            };
            let bad = |e: ConstraintError| (format!("{cp}.constraint"), e.to_string());
            let compat = Constraint::parse(&text, ParseMode::Compat).map_err(bad)?;
            let native = Constraint::parse(&text, ParseMode::Native).map_err(bad)?;
            for p in native.params() {
                known(format!("{cp}.constraint"), p)?;
            }
            constraints.push(ConstraintDecl {
                text,
                compat,
                native,
            });
        }
        let configuration = match rf.configuration {
            None => Configuration::default(),
            Some(rc) => {
                let cp = format!("{fp}.configuration");
                let names = |key: &str, v: Vec<Scalar>| -> Result<Vec<String>, Invalid> {
                    v.into_iter()
                        .enumerate()
                        .map(|(i, Scalar(s))| known(format!("{cp}.{key}[{i}]"), &s).map(|()| s))
                        .collect()
                };
                let ordering_parameters = names("ordering_parameters", rc.ordering_parameters)?;
                let conjunctive_filters = names("conjunctive_filters", rc.conjunctive_filters)?;
                let disjunctive_filters = names("disjunctive_filters", rc.disjunctive_filters)?;
                let mut disjoint_filters = Vec::new();
                for (i, d) in rc.disjoint_filters.into_iter().enumerate() {
                    let dp = format!("{cp}.disjoint_filters[{i}]");
                    let parameter = required(d.parameter, || dp.clone(), "parameter")?;
                    known(format!("{dp}.parameter"), &parameter)?;
                    let explicit_values = d.values.is_some();
                    let values = match d.values {
                        Some(v) => v.into_iter().map(|s| s.0).collect(),
                        None => parameters
                            .iter()
                            .find(|p| p.name == parameter)
                            .and_then(|p| p.enum_values.clone())
                            .unwrap_or_default(),
                    };
                    disjoint_filters.push(DisjointFilter {
                        parameter,
                        values,
                        explicit_values,
                    });
                }
                let mut complete_filters = Vec::new();
                for (i, c) in rc.complete_filters.into_iter().enumerate() {
                    let pp = format!("{cp}.complete_filters[{i}]");
                    let parameter = required(c.parameter, || pp.clone(), "parameter")?;
                    known(format!("{pp}.parameter"), &parameter)?;
                    let all_value = match c.all_value {
                        None => return Err((pp, "missing `all_value`".into())),
                        Some(Scalar(s)) if s == "empty" => AllValue::Empty,
                        Some(Scalar(s)) => AllValue::Value(s),
                    };
                    complete_filters.push(CompleteFilter {
                        parameter,
                        all_value,
                    });
                }
                let single = |key: &str, v: Option<Scalar>| -> Result<Option<String>, Invalid> {
                    match v {
                        None => Ok(None),
                        Some(Scalar(s)) => known(format!("{cp}.{key}"), &s).map(|()| Some(s)),
                    }
                };
                Configuration {
                    ordering_parameters,
                    conjunctive_filters,
                    disjunctive_filters,
                    disjoint_filters,
                    complete_filters,
                    limit_parameter: single("limit_parameter", rc.limit_parameter)?,
                    offset_parameter: single("offset_parameter", rc.offset_parameter)?,
                }
            }
        };
        let execution = match rf.execution {
            None => None,
            Some(re) => {
                let ep = format!("{fp}.execution");
                let url = required(re.url, || ep.clone(), "url")?;
                if !url.contains("{base}") {
                    return Err((
                        format!("{ep}.url"),
                        "must contain `{base}` (the system's base URL, given at run time)".into(),
                    ));
                }
                let pointer = |key: &str, v: Option<Scalar>| -> Result<String, Invalid> {
                    let s = required(v, || ep.clone(), key)?;
                    if !s.is_empty() && !s.starts_with('/') {
                        return Err((
                            format!("{ep}.{key}"),
                            format!("{s:?} is not a JSON pointer (it must start with `/`)"),
                        ));
                    }
                    Ok(s)
                };
                Some(Execution {
                    url,
                    items: pointer("items", re.items)?,
                    item_id: pointer("item_id", re.item_id)?,
                })
            }
        };
        features.push(Feature {
            id,
            description: rf.description.map(|s| s.0),
            parameters,
            constraints,
            configuration,
            execution,
        });
    }
    Ok(Spec { features })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SPEC: &str = r#"
features:
-  id: Search
   parameters:
   -  name: flag
      type: boolean
      enum: [Yes, no, true, 1.50, 007, ~x]
      default: true
      required: True
   -  name: q
      type: string
   -  name: limit
   -  name: offset
   constraints:
   - constraint: flag = Yes requires q
   - contraint: q excludes flag
   configuration:
      ordering_parameters: [q]
      conjunctive_filters:
      - q
      disjunctive_filters:
      disjoint_filters:
      - parameter: flag
      - parameter: flag
        values: [Yes]
      complete_filters:
      - parameter: flag
        all_value: empty
      - parameter: q
        all_value: 0
      limit_parameter: limit
      offset_parameter: offset
"#;

    fn err(text: &str) -> SpecError {
        Spec::parse(text, "x/spec.yml").unwrap_err()
    }

    #[test]
    fn parses_every_field_as_text() {
        let s = Spec::parse(SPEC, "spec.yml").unwrap();
        let f = s.feature("sEARCH").unwrap();
        assert_eq!(
            f.parameter_names().collect::<Vec<_>>(),
            ["flag", "q", "limit", "offset"]
        );
        let p = &f.parameters[0];
        assert_eq!(
            p.enum_values.as_deref().unwrap(),
            ["Yes", "no", "true", "1.50", "007", "~x"]
        );
        assert_eq!(p.default.as_deref(), Some("true"));
        assert_eq!(p.ty.as_deref(), Some("boolean"));
        assert!(p.is_required());
        assert!(!f.parameters[1].is_required());
        assert_eq!(f.constraints.len(), 2);
        assert_eq!(f.constraints[1].text, "q excludes flag");
        assert_eq!(f.constraints[0].native.left.value.as_deref(), Some("Yes"));
        let c = &f.configuration;
        assert_eq!(c.ordering_parameters, ["q"]);
        assert_eq!(c.conjunctive_filters, ["q"]);
        assert!(c.disjunctive_filters.is_empty());
        assert_eq!(c.disjoint_filters[0].values.len(), 6);
        assert!(!c.disjoint_filters[0].explicit_values);
        assert_eq!(c.disjoint_filters[1].values, ["Yes"]);
        assert_eq!(c.complete_filters[0].all_value, AllValue::Empty);
        assert_eq!(c.complete_filters[1].all_value, AllValue::Value("0".into()));
        assert_eq!(c.limit_parameter.as_deref(), Some("limit"));
        assert_eq!(c.offset_parameter.as_deref(), Some("offset"));
    }

    #[test]
    fn yaml_errors_name_file_line_column_and_path() {
        let e = err("features:\n- id: A\n  parameters:\n  - name: [1, 2]\n");
        let SpecError::Yaml {
            ref file,
            ref path,
            line,
            column,
            ..
        } = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(file, Path::new("x/spec.yml"));
        assert_eq!(path, "features[0].parameters[0].name");
        assert_eq!(line, Some(4));
        assert!(column.is_some());
        let shown = e.to_string();
        assert!(shown.starts_with("x/spec.yml:4:"), "{shown}");
        assert!(shown.contains("features[0].parameters[0].name"), "{shown}");
        assert!(
            !shown.contains("name: features"),
            "path not repeated: {shown}"
        );
        assert!(
            shown.ends_with("invalid type: sequence, expected a scalar"),
            "{shown}"
        );
        assert!(matches!(err("features: [\n"), SpecError::Yaml { .. }));
        assert!(matches!(err("- a\n- b\n"), SpecError::Yaml { .. }));
    }

    #[test]
    fn execution_block_and_value_pools() {
        let text = "features:\n- id: a\n  parameters:\n  - {name: p, values: [1, x, 'y z']}\n  execution: {url: '{base}/search', items: /items, item_id: /id}\n";
        let s = Spec::parse(text, "s.yml").unwrap();
        let f = &s.features[0];
        assert_eq!(f.parameters[0].values, ["1", "x", "y z"]);
        let e = f.execution.as_ref().unwrap();
        assert_eq!((e.url.as_str(), e.items.as_str(), e.item_id.as_str()), ("{base}/search", "/items", "/id"));
        assert_eq!(Spec::parse("features:\n- id: a\n", "s.yml").unwrap().features[0].execution, None);
    }

    #[test]
    fn content_errors_name_the_field() {
        let cases = [
            ("features: []", "features"),
            ("features:\n- parameters: []", "features[0]"),
            ("features:\n- id: a\n- id: A", "features[1].id"),
            ("features:\n- id: a\n  parameters: [{name: x}, {name: x}]", "features[0].parameters[1].name"),
            ("features:\n- id: a\n  constraints: [{constraint: x needs y}]", "features[0].constraints[0].constraint"),
            ("features:\n- id: a\n  parameters: [{name: x}]\n  constraints: [{constraint: x requires y}]", "features[0].constraints[0].constraint"),
            ("features:\n- id: a\n  constraints: [{description: z}]", "features[0].constraints[0]"),
            ("features:\n- id: a\n  configuration: {conjunctive_filters: [nope]}", "features[0].configuration.conjunctive_filters[0]"),
            ("features:\n- id: a\n  parameters: [{name: x}]\n  configuration: {complete_filters: [{parameter: x}]}", "features[0].configuration.complete_filters[0]"),
            ("features:\n- id: a\n  configuration: {limit_parameter: l}", "features[0].configuration.limit_parameter"),
            ("features:\n- id: a\n  execution: {url: 'http://x', items: /i, item_id: /id}", "features[0].execution.url"),
            ("features:\n- id: a\n  execution: {url: '{base}/s', items: items, item_id: /id}", "features[0].execution.items"),
            ("features:\n- id: a\n  execution: {url: '{base}/s', items: /items}", "features[0].execution"),
        ];
        for (text, want) in cases {
            match err(text) {
                SpecError::Invalid { path, .. } => assert_eq!(path, want, "{text}"),
                e => panic!("{text}: {e:?}"),
            }
        }
    }

    #[test]
    fn tags_aliases_quotes_bom_and_deep_nesting() {
        let s = Spec::parse(
            "\u{feff}features:\n- id: !!int 5\n  parameters: [{name: !!bool yes, enum: [!!str 1, &a x, *a, 'yes', \"q\", 0x1F, .inf]}]\n",
            "s.yml",
        )
        .unwrap();
        let p = &s.features[0].parameters[0];
        assert_eq!((s.features[0].id.as_str(), p.name.as_str()), ("5", "yes"));
        assert_eq!(
            p.enum_values.as_deref().unwrap(),
            ["1", "x", "x", "yes", "q", "0x1F", ".inf"]
        );
        // Unknown keys are skipped, however deep.
        let deep = format!(
            "features: [{{id: a, x: {}{}}}]",
            "[".repeat(1_000),
            "]".repeat(1_000)
        );
        assert_eq!(Spec::parse(&deep, "s.yml").unwrap().features[0].id, "a");
        let deep = format!(
            "features: [{{id: a, x: {}1{}}}]",
            "{a: ".repeat(1_000),
            "}".repeat(1_000)
        );
        assert!(Spec::parse(&deep, "s.yml").is_ok());
        let deep = format!(
            "features: [{{id: {}{}}}]",
            "[".repeat(1_000),
            "]".repeat(1_000)
        );
        assert!(Spec::parse(&deep, "s.yml").is_err());
    }

    #[test]
    fn io_error_names_the_file() {
        let e = Spec::from_path("/nonexistent/spec.yml").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/spec.yml: cannot read"),
            "{e}"
        );
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_text(s in any::<String>()) {
            let _ = Spec::parse(&s, "p.yml");
        }

        #[test]
        fn never_panics_on_yaml_like_text(s in "(features|id|parameters|name|enum|constraints|configuration|[-:\\[\\]{}\"'&*!|>#, \n]|[a-z0-9]){0,80}") {
            let _ = Spec::parse(&s, "p.yml");
        }
    }
}
