//! Where a calibrate run's directory goes: `--out`, else `notebooks-export/runs/TIMESTAMP-NAME`.

use crate::error::input_error;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// `YYYYMMDD-HHMMSS` (UTC) for a Unix time.
pub fn timestamp(unix: u64) -> String {
    let [y, m, d, h, mi, s] = crate::report::media::format::civil(unix as i64);
    format!("{y:04}{m:02}{d:02}-{h:02}{mi:02}{s:02}")
}

/// The run directory, created, and the time it was made.
pub fn create(out: Option<&Path>, name: &str) -> Result<(PathBuf, u64)> {
    let created_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| {
        PathBuf::from("notebooks-export").join("runs").join(format!(
            "{}-{}",
            timestamp(created_unix),
            sanitize(name)
        ))
    });
    std::fs::create_dir_all(&dir).map_err(|e| {
        input_error(format!(
            "cannot create the run directory '{}': {e}; pass --out DIR",
            dir.display()
        ))
    })?;
    Ok((dir, created_unix))
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(0), "19700101-000000");
        // 2026-11-23 00:10:05 UTC (python: datetime.utcfromtimestamp)
        assert_eq!(timestamp(1_795_392_605), "20261123-001005");
        assert_eq!(timestamp(951_782_400), "20000229-000000");
    }
}
