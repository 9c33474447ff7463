//! `--data filtered|raw`: local caches first, then a download from $HF_ENDPOINT (a mock Hub
//! on 127.0.0.1 here), atomic, with clear errors.

use crate::common::{raterlab, root};
use crate::mock_http::{MockServer, Reply};
use std::path::Path;

fn sample_bytes() -> Vec<u8> {
    std::fs::read(root().join("data/sample.parquet")).expect("sample")
}

/// Runs `raterlab data summary --data SPLIT` with caches inside `home` and the Hub at `hub`.
fn summary(
    home: &Path,
    hub: &str,
    split: &str,
    extra_env: &[(&str, &str)],
) -> (i32, String, String) {
    let mut cmd = raterlab(&["data", "summary", "--data", split]);
    cmd.env("HOME", home)
        .env_remove("HF_HOME")
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("HF_TOKEN")
        .env("RATERLAB_CACHE", home.join("raterlab-cache"))
        .env("HF_ENDPOINT", hub);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn cached(home: &Path, split: &str) -> std::path::PathBuf {
    home.join("raterlab-cache/reward-bench")
        .join(format!("{split}-00000-of-00001.parquet"))
}

fn leftovers(home: &Path) -> Vec<String> {
    std::fs::read_dir(home.join("raterlab-cache/reward-bench"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn downloads_once_then_serves_from_cache() {
    let home = tempfile::tempdir().expect("tempdir");
    let bytes = sample_bytes();
    let hub = MockServer::start(move |_| Reply::bytes(bytes.clone()));
    let (code, out, err) = summary(
        home.path(),
        &hub.url,
        "filtered",
        &[("HF_TOKEN", "hf_secret_token")],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("43 items"), "{out}");
    assert!(!out.contains("hf_secret_token") && !err.contains("hf_secret_token"));
    {
        let requests = hub.requests.lock().expect("log");
        assert_eq!(requests.len(), 1);
        assert_eq!(
            requests[0].path,
            "/datasets/allenai/reward-bench/resolve/main/data/filtered-00000-of-00001.parquet"
        );
        assert_eq!(
            requests[0].header("authorization"),
            Some("Bearer hf_secret_token")
        );
    }
    assert!(cached(home.path(), "filtered").is_file());
    let (code, _, err) = summary(home.path(), &hub.url, "filtered", &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(hub.count(), 1, "the second run made no request");
}

#[test]
fn interrupted_transfer_leaves_nothing_behind() {
    let home = tempfile::tempdir().expect("tempdir");
    let bytes = sample_bytes();
    let hub = MockServer::start(move |_| Reply::CutShort {
        body: bytes.clone(),
        sent: bytes.len() / 2,
    });
    let (code, _, err) = summary(home.path(), &hub.url, "raw", &[]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("was interrupted after"), "{err}");
    assert!(
        err.contains("nothing was kept, run the command again"),
        "{err}"
    );
    assert!(!cached(home.path(), "raw").exists());
    assert_eq!(
        leftovers(home.path()),
        Vec::<String>::new(),
        "no partial file"
    );
}

#[test]
fn not_found_and_not_parquet() {
    let home = tempfile::tempdir().expect("tempdir");
    let hub = MockServer::start(|r| {
        if r.path.contains("raw") {
            Reply::status(404, "Entry not found")
        } else {
            Reply::status(200, "<html>login page</html>")
        }
    });
    let (code, _, err) = summary(home.path(), &hub.url, "raw", &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("HTTP 404 Not Found; no such file; check HF_ENDPOINT and the split name"),
        "{err}"
    );
    let (code, _, err) = summary(home.path(), &hub.url, "filtered", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("is not Parquet"), "{err}");
    assert_eq!(leftovers(home.path()), Vec::<String>::new());
}

#[test]
fn offline_forbids_downloads_and_hf_cache_comes_first() {
    let home = tempfile::tempdir().expect("tempdir");
    let hub = MockServer::start(|_| Reply::status(500, "should not be asked"));
    let (code, _, err) = summary(
        home.path(),
        &hub.url,
        "filtered",
        &[("HF_HUB_OFFLINE", "1")],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("HF_HUB_OFFLINE forbids downloading it"),
        "{err}"
    );
    let snapshot = home
        .path()
        .join(".cache/huggingface/hub/datasets--allenai--reward-bench/snapshots/abc123/data");
    std::fs::create_dir_all(&snapshot).expect("dirs");
    std::fs::write(
        snapshot.join("filtered-00000-of-00001.parquet"),
        sample_bytes(),
    )
    .expect("copy");
    let (code, out, err) = summary(
        home.path(),
        &hub.url,
        "filtered",
        &[("HF_HUB_OFFLINE", "1")],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("43 items"));
    assert_eq!(hub.count(), 0, "no request was made");
}

/// `--data reward-bench-2`: RewardBench 2's test split from its own repository, read in its
/// form, then from raterlab's cache (HF_HUB_OFFLINE allows it).
#[test]
fn reward_bench_2_comes_from_its_own_repository() {
    let home = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(root().join("data/sample-v2.parquet")).expect("sample-v2");
    let hub = MockServer::start(move |_| Reply::bytes(bytes.clone()));
    let (code, out, err) = summary(home.path(), &hub.url, "reward-bench-2", &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("allenai/reward-bench-2 test"), "{out}");
    assert!(out.contains("19 rows in RewardBench 2's form"), "{out}");
    assert_eq!(
        hub.requests.lock().expect("log")[0].path,
        "/datasets/allenai/reward-bench-2/resolve/main/data/test-00000-of-00001.parquet"
    );
    let own = home
        .path()
        .join("raterlab-cache/reward-bench-2/test-00000-of-00001.parquet");
    assert!(own.is_file());
    let (code, out, err) = summary(
        home.path(),
        &hub.url,
        "reward-bench-2",
        &[("HF_HUB_OFFLINE", "1")],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("19 rows"), "{out}");
    assert_eq!(
        hub.requests.lock().expect("log").len(),
        1,
        "served from the cache"
    );
    // Offline without a copy: says what to do.
    let empty = tempfile::tempdir().expect("tempdir");
    let (code, _, err) = summary(
        empty.path(),
        &hub.url,
        "reward-bench-2",
        &[("HF_HUB_OFFLINE", "1")],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("allenai/reward-bench-2's 'test' split is not on this machine")
            && err.contains("test-00000-of-00001.parquet"),
        "{err}"
    );
}
