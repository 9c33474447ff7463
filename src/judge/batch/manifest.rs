//! `manifest.json`: what an export planned (its counts and shards), with the shards' keys
//! streamed back rather than held whole.

use super::requests::{Format, Key};
use super::shards::Shard;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// What an export counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Calls the plan makes (every configuration, item, order and sample).
    pub calls: u64,
    /// Already in the cache: never exported.
    pub cached: u64,
    /// The same request as an earlier call (same custom_id): exported once.
    pub duplicates: u64,
    /// Request lines written.
    pub pending: u64,
}

/// `manifest.json` of an export.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub raterlab_version: String,
    pub format: Format,
    pub created_unix: u64,
    /// What was planned (data, seed, configurations, command line).
    pub plan: Value,
    pub counts: Counts,
    pub shards: Vec<Shard>,
}

impl Manifest {
    pub fn read(path: &Path) -> Result<Self, String> {
        let file =
            File::open(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        serde_json::from_reader(std::io::BufReader::new(file)).map_err(|e| {
            format!(
                "'{}' is not a raterlab batch manifest ({e}); give the manifest.json that `raterlab batch export` wrote",
                path.display()
            )
        })
    }

    /// Written whole (temporary file, then renamed). Each shard is listed with its keys,
    /// read from its file in `dir` one shard at a time, so a manifest of millions of keys is
    /// written without holding them all.
    pub fn write(&self, path: &Path, dir: &Path) -> std::io::Result<()> {
        let partial = path.with_extension("json.partial");
        {
            let mut out = BufWriter::new(File::create(&partial)?);
            let head = serde_json::json!({
                "raterlab_version": self.raterlab_version,
                "format": self.format,
                "created_unix": self.created_unix,
                "plan": self.plan,
                "counts": self.counts,
            });
            let head = serde_json::to_string_pretty(&head).map_err(std::io::Error::other)?;
            // The object without its closing brace, then the shards.
            out.write_all(head.trim_end().trim_end_matches('}').trim_end().as_bytes())?;
            out.write_all(b",\n  \"shards\": [")?;
            for (i, shard) in self.shards.iter().enumerate() {
                let mut listed = serde_json::to_value(shard).map_err(std::io::Error::other)?;
                listed["keys"] = json!(shard_keys(&dir.join(&shard.file))?);
                out.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
                serde_json::to_writer(&mut out, &listed).map_err(std::io::Error::other)?;
            }
            out.write_all(b"\n  ]\n}\n")?;
            out.flush()?;
        }
        std::fs::rename(partial, path)
    }

    /// Every key the manifest at `path` lists, streamed from the file (never all in memory).
    pub fn for_each_key(path: &Path, each: impl FnMut(Key)) -> Result<(), String> {
        let file =
            File::open(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
        let mut reader = serde_json::Deserializer::from_reader(std::io::BufReader::new(file));
        let mut each = each;
        serde::de::DeserializeSeed::deserialize(
            keys::At(keys::Where::Manifest, &mut each),
            &mut reader,
        )
        .map_err(|e| {
            format!(
                "'{}': cannot read the manifest's keys ({e}); give the manifest.json that `raterlab batch export` wrote, unedited",
                path.display()
            )
        })
    }
}

/// Streaming the manifest's keys: the manifest object → its `shards` array → each shard
/// object → its `keys` array, and its `samples` map's arrays (the later samples of requests
/// of several).
mod keys {
    use super::Key;
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// Where in the manifest a value is.
    #[derive(Clone, Copy)]
    pub enum Where {
        Manifest,
        Shards,
        Shard,
        Keys,
        Samples,
    }

    /// A value of the manifest at `.0`, its keys handed to `.1`.
    pub struct At<'a, F>(pub Where, pub &'a mut F);

    impl<'de, F: FnMut(Key)> DeserializeSeed<'de> for At<'_, F> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de, F: FnMut(Key)> Visitor<'de> for At<'_, F> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(match self.0 {
                Where::Manifest | Where::Shard | Where::Samples => "an object",
                Where::Shards | Where::Keys => "an array",
            })
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let fields: &[(&str, Where)] = match self.0 {
                Where::Manifest => &[("shards", Where::Shards)],
                Where::Shard => &[("keys", Where::Keys), ("samples", Where::Samples)],
                // Each first key (listed in `keys`) → its later samples' keys.
                Where::Samples => {
                    while map.next_key::<IgnoredAny>()?.is_some() {
                        map.next_value_seed(At(Where::Keys, &mut *self.1))?;
                    }
                    return Ok(());
                }
                _ => return Err(serde::de::Error::custom("an object where an array belongs")),
            };
            while let Some(name) = map.next_key::<String>()? {
                match fields.iter().find(|(field, _)| *field == name) {
                    Some((_, inside)) => map.next_value_seed(At(*inside, &mut *self.1))?,
                    None => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            match self.0 {
                Where::Shards => {
                    while seq
                        .next_element_seed(At(Where::Shard, &mut *self.1))?
                        .is_some()
                    {}
                }
                Where::Keys => {
                    while let Some(key) = seq.next_element::<Key>()? {
                        (self.1)(key);
                    }
                }
                _ => return Err(serde::de::Error::custom("an array where an object belongs")),
            }
            Ok(())
        }
    }
}

/// The custom_ids of a shard file, in order.
fn shard_keys(path: &Path) -> std::io::Result<Vec<Key>> {
    use std::io::BufRead;
    #[derive(Deserialize)]
    struct Id {
        custom_id: Key,
    }
    let mut keys = Vec::new();
    for line in std::io::BufReader::new(File::open(path)?).lines() {
        let id: Id = serde_json::from_str(&line?).map_err(std::io::Error::other)?;
        keys.push(id.custom_id);
    }
    Ok(keys)
}
