//! String enums that tolerate values this version does not know.
//!
//! A watch must never fail on one bad object, so an unknown value deserializes into
//! `Other(value)` and the controller reports it in status instead of crashing. Each enum
//! chooses whether its CRD schema restricts the values (`enum:`) or leaves the field a plain
//! string so the controller can answer an unknown value with a clear status reason.

/// Declares a wire enum: `wire_enum!(Name, restricted_in_schema, { Variant => "Wire", .. })`.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $name:ident, schema_enum = $restrict:literal,
        { $( $(#[$vmeta:meta])* $variant:ident => $wire:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this version does not know, kept verbatim so it can be reported.
            Other(String),
        }

        impl $name {
            /// Every value this version knows, in wire form.
            pub const KNOWN: &'static [&'static str] = &[$($wire),+];

            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $wire, )+
                    Self::Other(value) => value,
                }
            }

            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $wire => Self::$variant, )+
                    other => Self::Other(other.to_string()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <String as serde::Deserialize>::deserialize(deserializer)?;
                Ok(Self::from(value.as_str()))
            }
        }

        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                if $restrict {
                    schemars::json_schema!({ "type": "string", "enum": Self::KNOWN })
                } else {
                    schemars::json_schema!({ "type": "string" })
                }
            }
        }
    };
}

pub(crate) use wire_enum;
