//! trainlint's own JSON Schema (draft 2020-12) validator, for exactly the
//! keywords the schemas generated from `crate::schema`'s types use.
//!
//! The `jsonschema` crate was a third of a cold release build (regex,
//! fancy-regex, an HTTP-free reference resolver, formats; book/src/benchmarks.md)
//! for a dozen keywords. This one reports what `jsonschema` 0.61 reports, error
//! for error: the same kinds, instance paths and messages, and at one instance
//! path the same order (keywords run in `jsonschema`'s priority order, below).
//! `tests/validator_agreement.rs` holds it to that over every fixture and corpus
//! config, with `jsonschema` as a dev-dependency.
//!
//! A schema with a keyword this validator does not know fails to compile
//! (`CompileError::UnsupportedKeyword`), so a new schemars attribute cannot
//! leave a constraint silently unchecked; the SCH rules compile their schemas
//! in a unit test. `format` is an annotation in 2020-12 (and schemars writes
//! formats such as `uint32` that no validator knows); `pattern` is refused,
//! as no schema validated at run time uses it and there is no regex engine here.

use serde_json::{Map, Number, Value as Json};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;

/// Why a schema does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("`{keyword}` at `{location}` is a JSON Schema keyword trainlint's validator does not implement")]
    UnsupportedKeyword { keyword: String, location: String },
    #[error("`{keyword}` at `{location}` has a value of the wrong shape")]
    Malformed { keyword: String, location: String },
    #[error("`$ref` `{reference}` at `{location}` points nowhere in the schema")]
    UnresolvedReference { reference: String, location: String },
}

/// Keywords that do not constrain an instance. `x-…` extensions are annotations too.
const ANNOTATIONS: &[&str] =
    &["$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples", "format", "deprecated", "readOnly", "writeOnly"];

/// JSON types in `jsonschema`'s order (its `JsonTypeSet` iterates null, boolean,
/// integer, number, string, array, object), which is the order messages list them in.
const TYPES: [&str; 7] = ["null", "boolean", "integer", "number", "string", "array", "object"];

/// A compiled schema.
#[derive(Debug)]
pub struct Validator {
    nodes: Vec<Node>,
}

#[derive(Debug, Default)]
enum Node {
    /// `true`, `{}` or a schema of annotations only.
    #[default]
    Any,
    /// `false`.
    Nothing,
    Keywords(Box<Keywords>),
}

#[derive(Debug, Default)]
struct Keywords {
    /// Indices into `TYPES`, ascending.
    types: Option<Vec<usize>>,
    constant: Option<Json>,
    /// The `enum` array itself, for the message.
    options: Option<Json>,
    minimum: Option<Json>,
    maximum: Option<Json>,
    exclusive_minimum: Option<Json>,
    exclusive_maximum: Option<Json>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    required: Vec<String>,
    /// `jsonschema` checks a single `required` name during the walk of a closed
    /// object and reports it after that walk's errors, not before.
    required_after_properties: bool,
    properties: Option<Vec<(String, usize)>>,
    additional: Additional,
    items: Option<usize>,
    any_of: Option<Vec<usize>>,
    one_of: Option<Vec<usize>>,
    reference: Option<usize>,
}

#[derive(Debug, Default)]
enum Additional {
    /// Absent or `true`.
    #[default]
    Allowed,
    /// `false`.
    Forbidden,
    Schema(usize),
}

/// One violation, as `jsonschema::ValidationError` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError<'a> {
    /// A JSON pointer (`/batch/micro_batch`), `""` for the root.
    pub instance_path: String,
    pub instance: &'a Json,
    pub kind: ErrorKind<'a>,
}

/// What is wrong; the fields are those of the `jsonschema` error kind of the same name.
#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind<'a> {
    /// The types the schema allows, in `TYPES` order.
    Type {
        expected: Vec<&'static str>,
    },
    Constant {
        expected: &'a Json,
    },
    Enum {
        options: &'a Json,
    },
    Minimum {
        limit: &'a Json,
    },
    Maximum {
        limit: &'a Json,
    },
    ExclusiveMinimum {
        limit: &'a Json,
    },
    ExclusiveMaximum {
        limit: &'a Json,
    },
    MinItems {
        limit: u64,
    },
    MaxItems {
        limit: u64,
    },
    Required {
        property: &'a str,
    },
    /// Undeclared keys of an object closed with `additionalProperties: false`, in instance order.
    AdditionalProperties {
        unexpected: Vec<String>,
    },
    /// A `false` schema met a value: the first key of an object that declares none and
    /// allows no others, reported at the object's path with that key's value.
    FalseSchema,
    /// No branch matched; each branch's errors.
    AnyOf {
        context: Vec<Vec<ValidationError<'a>>>,
    },
    OneOfNotValid {
        context: Vec<Vec<ValidationError<'a>>>,
    },
    OneOfMultipleValid {
        context: Vec<Vec<ValidationError<'a>>>,
    },
}

impl Validator {
    /// Compiles a schema whose `$ref`s point into itself (`#/$defs/…`).
    pub fn new(schema: &Json) -> Result<Validator, CompileError> {
        let mut compiler = Compiler { root: schema, nodes: vec![Node::Any], by_pointer: HashMap::new() };
        compiler.by_pointer.insert(String::new(), 0);
        compiler.nodes[0] = compiler.node(schema, "")?;
        // Every definition compiles, used or not, so none hides an unsupported keyword.
        if let Some(defs) = schema.get("$defs").and_then(Json::as_object) {
            for name in defs.keys() {
                compiler.pointer(&format!("/$defs/{}", escape(name)), "/$defs")?;
            }
        }
        Ok(Validator { nodes: compiler.nodes })
    }

    pub fn is_valid(&self, instance: &Json) -> bool {
        self.iter_errors(instance).is_empty()
    }

    /// Every violation of `instance`, in `jsonschema`'s order.
    pub fn iter_errors<'a>(&'a self, instance: &'a Json) -> Vec<ValidationError<'a>> {
        let mut errors = Vec::new();
        let mut path = String::new();
        self.collect(0, instance, &mut path, &mut errors);
        errors
    }

    fn valid_at(&self, node: usize, instance: &Json) -> bool {
        let mut errors = Vec::new();
        self.collect(node, instance, &mut String::new(), &mut errors);
        errors.is_empty()
    }

    fn collect<'a>(&'a self, node: usize, instance: &'a Json, path: &mut String, errors: &mut Vec<ValidationError<'a>>) {
        let keywords = match &self.nodes[node] {
            Node::Any => return,
            Node::Nothing => {
                errors.push(error(path, instance, ErrorKind::FalseSchema));
                return;
            }
            Node::Keywords(keywords) => keywords,
        };
        if let Some(types) = &keywords.types
            && !types.iter().any(|&t| has_type(instance, TYPES[t]))
        {
            errors.push(error(path, instance, ErrorKind::Type { expected: types.iter().map(|&t| TYPES[t]).collect() }));
        }
        if let Some(expected) = &keywords.constant
            && !equal(instance, expected)
        {
            errors.push(error(path, instance, ErrorKind::Constant { expected }));
        }
        if let Some(options) = &keywords.options
            && !options.as_array().is_some_and(|o| o.iter().any(|option| equal(instance, option)))
        {
            errors.push(error(path, instance, ErrorKind::Enum { options }));
        }
        if let Json::Number(number) = instance {
            type Bound<'a> = (&'a Option<Json>, fn(&'a Json) -> ErrorKind<'a>, fn(Ordering) -> bool);
            let bounds: [Bound<'a>; 4] = [
                (&keywords.minimum, |limit| ErrorKind::Minimum { limit }, Ordering::is_lt),
                (&keywords.maximum, |limit| ErrorKind::Maximum { limit }, Ordering::is_gt),
                (&keywords.exclusive_minimum, |limit| ErrorKind::ExclusiveMinimum { limit }, Ordering::is_le),
                (&keywords.exclusive_maximum, |limit| ErrorKind::ExclusiveMaximum { limit }, Ordering::is_ge),
            ];
            for (limit, kind, violated) in bounds {
                if let Some(limit @ Json::Number(bound)) = limit
                    && violated(compare(number, bound))
                {
                    errors.push(error(path, instance, kind(limit)));
                }
            }
        }
        if let Json::Array(items) = instance {
            let count = items.len() as u64;
            if let Some(limit) = keywords.min_items.filter(|&limit| count < limit) {
                errors.push(error(path, instance, ErrorKind::MinItems { limit }));
            }
            if let Some(limit) = keywords.max_items.filter(|&limit| count > limit) {
                errors.push(error(path, instance, ErrorKind::MaxItems { limit }));
            }
        }
        if let Json::Object(object) = instance {
            if !keywords.required_after_properties {
                missing_required(keywords, object, instance, path, errors);
            }
            self.collect_members(keywords, instance, path, errors);
            if keywords.required_after_properties {
                missing_required(keywords, object, instance, path, errors);
            }
        }
        if let (Some(node), Json::Array(items)) = (keywords.items, instance) {
            for (index, item) in items.iter().enumerate() {
                let length = path.len();
                path.push('/');
                path.push_str(&index.to_string());
                self.collect(node, item, path, errors);
                path.truncate(length);
            }
        }
        if let Some(branches) = &keywords.any_of
            && !branches.iter().any(|&branch| self.valid_at(branch, instance))
        {
            let context = self.branch_errors(branches, instance, path);
            errors.push(error(path, instance, ErrorKind::AnyOf { context }));
        }
        if let Some(branches) = &keywords.one_of {
            let valid = branches.iter().filter(|&&branch| self.valid_at(branch, instance)).count();
            if valid != 1 {
                let context = self.branch_errors(branches, instance, path);
                let kind = if valid == 0 { ErrorKind::OneOfNotValid { context } } else { ErrorKind::OneOfMultipleValid { context } };
                errors.push(error(path, instance, kind));
            }
        }
        if let Some(node) = keywords.reference {
            self.collect(node, instance, path, errors);
        }
    }

    /// `properties` and `additionalProperties`, member by member in the instance's order.
    fn collect_members<'a>(&'a self, keywords: &'a Keywords, instance: &'a Json, path: &mut String, errors: &mut Vec<ValidationError<'a>>) {
        let Json::Object(object) = instance else { return };
        let declared = keywords.properties.as_deref().unwrap_or_default();
        let mut unexpected = Vec::new();
        for (name, value) in object {
            let node = match declared.iter().find(|(declared, _)| declared == name) {
                Some(&(_, node)) => node,
                None => match keywords.additional {
                    Additional::Allowed => continue,
                    Additional::Schema(node) => node,
                    // With declared keys, one error lists every undeclared key; without,
                    // `jsonschema` reports the first undeclared value as a `false` schema,
                    // at the object's path.
                    Additional::Forbidden if keywords.properties.is_some() => {
                        unexpected.push(name.clone());
                        continue;
                    }
                    Additional::Forbidden => {
                        errors.push(error(path, value, ErrorKind::FalseSchema));
                        return;
                    }
                },
            };
            let length = path.len();
            push_segment(path, name);
            self.collect(node, value, path, errors);
            path.truncate(length);
        }
        if !unexpected.is_empty() {
            errors.push(error(path, instance, ErrorKind::AdditionalProperties { unexpected }));
        }
    }

    fn branch_errors<'a>(&'a self, branches: &[usize], instance: &'a Json, path: &mut String) -> Vec<Vec<ValidationError<'a>>> {
        branches
            .iter()
            .map(|&branch| {
                let mut branch_errors = Vec::new();
                self.collect(branch, instance, path, &mut branch_errors);
                branch_errors
            })
            .collect()
    }
}

fn error<'a>(path: &str, instance: &'a Json, kind: ErrorKind<'a>) -> ValidationError<'a> {
    ValidationError { instance_path: path.to_owned(), instance, kind }
}

fn missing_required<'a>(keywords: &'a Keywords, object: &Map<String, Json>, instance: &'a Json, path: &str, errors: &mut Vec<ValidationError<'a>>) {
    for property in &keywords.required {
        if !object.contains_key(property) {
            errors.push(error(path, instance, ErrorKind::Required { property }));
        }
    }
}

/// Appends `/name` to a JSON pointer, escaped (`~` → `~0`, `/` → `~1`).
fn push_segment(path: &mut String, name: &str) {
    path.push('/');
    path.push_str(&escape(name));
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn has_type(instance: &Json, name: &str) -> bool {
    match (instance, name) {
        (Json::Number(number), "integer") => is_integer(number),
        (Json::Null, "null")
        | (Json::Bool(_), "boolean")
        | (Json::Number(_), "number")
        | (Json::String(_), "string")
        | (Json::Array(_), "array")
        | (Json::Object(_), "object") => true,
        _ => false,
    }
}

/// 2020-12: any number with no fractional part is an integer (`1.0` too).
fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// JSON equality as `enum` and `const` mean it: numbers by value (`1 == 1.0`).
fn equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => compare(x, y) == Ordering::Equal,
        (Json::Array(x), Json::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y)),
        (Json::Object(x), Json::Object(y)) => x.len() == y.len() && x.iter().all(|(key, x)| y.get(key).is_some_and(|y| equal(x, y))),
        _ => a == b,
    }
}

/// Two numbers compared exactly, whichever of u64, i64 and f64 each holds.
fn compare(a: &Number, b: &Number) -> Ordering {
    match (whole(a), whole(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (None, Some(y)) => compare_float(a.as_f64().unwrap_or_default(), y),
        (Some(x), None) => compare_float(b.as_f64().unwrap_or_default(), x).reverse(),
        (None, None) => a.as_f64().unwrap_or_default().partial_cmp(&b.as_f64().unwrap_or_default()).unwrap_or(Ordering::Equal),
    }
}

fn whole(number: &Number) -> Option<i128> {
    number.as_i64().map(i128::from).or_else(|| number.as_u64().map(i128::from))
}

/// A float against an integer without rounding the integer to a float.
fn compare_float(float: f64, integer: i128) -> Ordering {
    // Past ±2^127 no i128 compares; serde_json holds no NaN or infinity.
    const LIMIT: f64 = 1.7e38;
    if float <= -LIMIT {
        return Ordering::Less;
    }
    if float >= LIMIT {
        return Ordering::Greater;
    }
    let truncated = float.trunc();
    match (truncated as i128).cmp(&integer) {
        Ordering::Equal => float.partial_cmp(&truncated).unwrap_or(Ordering::Equal),
        order => order,
    }
}

struct Compiler<'s> {
    root: &'s Json,
    nodes: Vec<Node>,
    /// Nodes compiled from a JSON pointer into the root, so a recursive `$ref` ends.
    by_pointer: HashMap<String, usize>,
}

impl<'s> Compiler<'s> {
    fn pointer(&mut self, pointer: &str, location: &str) -> Result<usize, CompileError> {
        if let Some(&index) = self.by_pointer.get(pointer) {
            return Ok(index);
        }
        let unresolved = || CompileError::UnresolvedReference { reference: format!("#{pointer}"), location: location.to_owned() };
        let target = self.root.pointer(pointer).ok_or_else(unresolved)?;
        let index = self.nodes.len();
        self.nodes.push(Node::Any);
        self.by_pointer.insert(pointer.to_owned(), index);
        self.nodes[index] = self.node(target, pointer)?;
        Ok(index)
    }

    fn subschema(&mut self, schema: &'s Json, location: &str) -> Result<usize, CompileError> {
        let node = self.node(schema, location)?;
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    fn subschemas(&mut self, schemas: &'s Json, location: &str, keyword: &str) -> Result<Vec<usize>, CompileError> {
        let schemas = schemas.as_array().filter(|s| !s.is_empty()).ok_or_else(|| malformed(keyword, location))?;
        schemas.iter().enumerate().map(|(index, schema)| self.subschema(schema, &format!("{location}/{index}"))).collect()
    }

    fn node(&mut self, schema: &'s Json, location: &str) -> Result<Node, CompileError> {
        let object = match schema {
            Json::Bool(true) => return Ok(Node::Any),
            Json::Bool(false) => return Ok(Node::Nothing),
            Json::Object(object) => object,
            _ => return Err(malformed("schema", location)),
        };
        let mut keywords = Keywords::default();
        for (keyword, value) in object {
            let at = format!("{location}/{}", escape(keyword));
            let number = || value.is_number().then(|| value.clone()).ok_or_else(|| malformed(keyword, &at));
            let count = || value.as_u64().ok_or_else(|| malformed(keyword, &at));
            match keyword.as_str() {
                "type" => keywords.types = Some(types(value).ok_or_else(|| malformed(keyword, &at))?),
                "const" => keywords.constant = Some(value.clone()),
                "enum" if value.is_array() => keywords.options = Some(value.clone()),
                "minimum" => keywords.minimum = Some(number()?),
                "maximum" => keywords.maximum = Some(number()?),
                "exclusiveMinimum" => keywords.exclusive_minimum = Some(number()?),
                "exclusiveMaximum" => keywords.exclusive_maximum = Some(number()?),
                "minItems" => keywords.min_items = Some(count()?),
                "maxItems" => keywords.max_items = Some(count()?),
                "required" => {
                    let names = value.as_array().and_then(|names| names.iter().map(|n| n.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>());
                    keywords.required = names.ok_or_else(|| malformed(keyword, &at))?;
                }
                "properties" => {
                    let map = value.as_object().ok_or_else(|| malformed(keyword, &at))?;
                    let mut properties = Vec::with_capacity(map.len());
                    for (name, subschema) in map {
                        properties.push((name.clone(), self.subschema(subschema, &format!("{at}/{}", escape(name)))?));
                    }
                    keywords.properties = Some(properties);
                }
                "additionalProperties" => {
                    keywords.additional = match value {
                        Json::Bool(true) => Additional::Allowed,
                        Json::Bool(false) => Additional::Forbidden,
                        Json::Object(_) => Additional::Schema(self.subschema(value, &at)?),
                        _ => return Err(malformed(keyword, &at)),
                    }
                }
                // 2020-12: `items` is one schema for every item (the array form is `prefixItems`).
                "items" if matches!(value, Json::Object(_) | Json::Bool(_)) => keywords.items = Some(self.subschema(value, &at)?),
                "anyOf" => keywords.any_of = Some(self.subschemas(value, &at, keyword)?),
                "oneOf" => keywords.one_of = Some(self.subschemas(value, &at, keyword)?),
                "$ref" => {
                    let reference = value.as_str().ok_or_else(|| malformed(keyword, &at))?;
                    let unresolved = || CompileError::UnresolvedReference { reference: reference.to_owned(), location: at.clone() };
                    let pointer = reference.strip_prefix('#').ok_or_else(unresolved)?;
                    keywords.reference = Some(self.pointer(pointer, &at)?);
                }
                "enum" | "items" => return Err(malformed(keyword, &at)),
                _ if ANNOTATIONS.contains(&keyword.as_str()) || keyword.starts_with("x-") => {}
                _ => return Err(CompileError::UnsupportedKeyword { keyword: keyword.clone(), location: location.to_owned() }),
            }
        }
        keywords.required_after_properties =
            keywords.required.len() == 1 && matches!(keywords.additional, Additional::Forbidden) && keywords.properties.is_some();
        Ok(Node::Keywords(Box::new(keywords)))
    }
}

fn malformed(keyword: &str, location: &str) -> CompileError {
    CompileError::Malformed { keyword: keyword.to_owned(), location: location.to_owned() }
}

/// `"integer"` or `["integer", "null"]` as ascending indices into `TYPES`.
fn types(value: &Json) -> Option<Vec<usize>> {
    let index = |name: &Json| TYPES.iter().position(|t| Some(*t) == name.as_str());
    let mut types = match value {
        Json::String(_) => vec![index(value)?],
        Json::Array(names) => names.iter().map(index).collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    types.sort_unstable();
    types.dedup();
    Some(types)
}

/// The text `jsonschema`'s `Display` gives the same error.
impl fmt::Display for ValidationError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let instance = self.instance;
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        match &self.kind {
            ErrorKind::Type { expected } if expected.len() == 1 => write!(f, r#"{instance} is not of type "{}""#, expected[0]),
            ErrorKind::Type { expected } => {
                let quoted: Vec<String> = expected.iter().map(|t| format!("\"{t}\"")).collect();
                write!(f, "{instance} is not of types {}", quoted.join(", "))
            }
            ErrorKind::Constant { expected } => write!(f, "{expected} was expected"),
            ErrorKind::Enum { options } => {
                let options = options.as_array().map(Vec::as_slice).unwrap_or_default();
                write!(f, "{instance} is not one of ")?;
                // At most three shown, as `jsonschema` does.
                if options.len() <= 3 {
                    for (index, option) in options.iter().enumerate() {
                        let separator = if index == 0 {
                            ""
                        } else if index + 1 == options.len() {
                            " or "
                        } else {
                            ", "
                        };
                        write!(f, "{separator}{option}")?;
                    }
                    Ok(())
                } else {
                    let shown: Vec<String> = options.iter().take(2).map(Json::to_string).collect();
                    write!(f, "{} or {} other candidates", shown.join(", "), options.len() - 2)
                }
            }
            ErrorKind::Minimum { limit } => write!(f, "{instance} is less than the minimum of {limit}"),
            ErrorKind::Maximum { limit } => write!(f, "{instance} is greater than the maximum of {limit}"),
            ErrorKind::ExclusiveMinimum { limit } => write!(f, "{instance} is less than or equal to the minimum of {limit}"),
            ErrorKind::ExclusiveMaximum { limit } => write!(f, "{instance} is greater than or equal to the maximum of {limit}"),
            ErrorKind::MinItems { limit } => write!(f, "{instance} has less than {limit} item{}", plural(*limit)),
            ErrorKind::MaxItems { limit } => write!(f, "{instance} has more than {limit} item{}", plural(*limit)),
            ErrorKind::Required { property } => write!(f, "{} is a required property", Json::from(*property)),
            ErrorKind::AdditionalProperties { unexpected } => {
                let quoted: Vec<String> = unexpected.iter().map(|name| format!("'{name}'")).collect();
                let verb = if unexpected.len() == 1 { "was" } else { "were" };
                write!(f, "Additional properties are not allowed ({} {verb} unexpected)", quoted.join(", "))
            }
            ErrorKind::FalseSchema => write!(f, "False schema does not allow {instance}"),
            ErrorKind::AnyOf { .. } => write!(f, "{instance} is not valid under any of the schemas listed in the 'anyOf' keyword"),
            ErrorKind::OneOfNotValid { .. } => write!(f, "{instance} is not valid under any of the schemas listed in the 'oneOf' keyword"),
            ErrorKind::OneOfMultipleValid { .. } => write!(f, "{instance} is valid under more than one of the schemas listed in the 'oneOf' keyword"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: &Json, instance: &Json) -> Vec<(String, String)> {
        let validator = Validator::new(schema).expect("compiles");
        validator.iter_errors(instance).iter().map(|e| (e.instance_path.clone(), e.to_string())).collect()
    }

    #[test]
    fn every_schema_compiles_or_names_the_keyword_it_lacks() {
        for name in crate::schema::NAMES {
            let schema = crate::schema::schema(name).expect("known schema");
            match Validator::new(&schema) {
                Ok(_) => {}
                // `pattern` is in schemas trainlint reads with serde, never validates.
                Err(CompileError::UnsupportedKeyword { keyword, .. }) if keyword == "pattern" && !["training-config", "curriculum-stage"].contains(&name) => {}
                Err(error) => panic!("{name}: {error}"),
            }
        }
    }

    #[test]
    fn unknown_keywords_fail_to_compile() {
        let error = Validator::new(&json!({"properties": {"a": {"type": "string", "minLength": 1}}})).unwrap_err();
        assert_eq!(error, CompileError::UnsupportedKeyword { keyword: "minLength".into(), location: "/properties/a".into() });
        assert!(Validator::new(&json!({"$ref": "#/$defs/Missing"})).is_err());
        assert!(Validator::new(&json!({"type": "integr"})).is_err());
        assert!(Validator::new(&json!({"x-trainlint": {"role": "devices"}, "format": "uint32", "description": "d"})).is_ok());
    }

    #[test]
    fn numbers_compare_exactly() {
        let schema = json!({"type": "integer", "minimum": 1, "maximum": 9007199254740993_u64});
        assert_eq!(errors(&schema, &json!(1.0)), vec![]);
        assert_eq!(
            errors(&schema, &json!(0.5)),
            vec![("".into(), r#"0.5 is not of type "integer""#.into()), ("".into(), "0.5 is less than the minimum of 1".into())]
        );
        assert_eq!(errors(&schema, &json!(9007199254740994_u64)).len(), 1);
        assert_eq!(errors(&schema, &json!(9007199254740993_u64)), vec![]);
        assert_eq!(errors(&json!({"exclusiveMinimum": 0.0}), &json!(0)).len(), 1);
        assert_eq!(errors(&json!({"enum": [1, "a"]}), &json!(1.0)), vec![]);
    }

    #[test]
    fn closed_objects_and_references() {
        let schema = json!({
            "type": "object", "additionalProperties": false, "required": ["v"],
            "properties": {"v": {"type": "integer"}, "n": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "null"}]}},
            "$defs": {"N": {"type": "object", "additionalProperties": false, "properties": {"n": {"$ref": "#/$defs/N"}}}}
        });
        assert_eq!(
            errors(&schema, &json!({"x/y": 1, "n": {"n": {"z": 1}}})),
            vec![
                ("/n".into(), r#"{"n":{"z":1}} is not valid under any of the schemas listed in the 'anyOf' keyword"#.into()),
                ("".into(), "Additional properties are not allowed ('x/y' was unexpected)".into()),
                ("".into(), r#""v" is a required property"#.into()),
            ]
        );
        let validator = Validator::new(&schema).unwrap();
        let instance = json!({"v": 1, "n": {"n": {"z": 1}}});
        let errors = validator.iter_errors(&instance);
        let ErrorKind::AnyOf { context } = &errors[0].kind else { panic!("{errors:?}") };
        assert_eq!(context[0][0].instance_path, "/n/n");
        assert_eq!(context[1][0].kind, ErrorKind::Type { expected: vec!["null"] });
    }
}
