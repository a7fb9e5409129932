//! Content-addressed artifact files next to the database: `<root>/<first two hex>/<blake3 hex>`.
//!
//! Blobs live as files, not inside sled, because they can be gigabytes (traces). Writes go to a
//! temporary file that is renamed into place once its hash is known, so a crash never leaves a
//! file whose name lies about its content.

use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    #[error("artifact i/o on {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("artifact content hashes to {actual}, not the declared {declared}")]
    HashMismatch { declared: String, actual: String },
    #[error("`{0}` is not a blake3 hex digest")]
    BadHash(String),
}

pub struct ArtifactStore {
    root: PathBuf,
}

/// True for a 64-digit lowercase hex string: the only names the store accepts, so a request
/// can never name a path outside it.
pub fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl ArtifactStore {
    pub fn open(root: &Path) -> Result<Self, ArtifactError> {
        let tmp = root.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|source| ArtifactError::Io { path: tmp.clone(), source })?;
        Ok(ArtifactStore { root: root.to_path_buf() })
    }

    /// Where an artifact with this hash lives (whether or not it exists).
    pub fn path(&self, hash: &str) -> Result<PathBuf, ArtifactError> {
        if !is_hash(hash) {
            return Err(ArtifactError::BadHash(hash.to_string()));
        }
        Ok(self.root.join(&hash[..2]).join(hash))
    }

    pub fn contains(&self, hash: &str) -> bool {
        self.path(hash).map(|p| p.is_file()).unwrap_or(false)
    }

    /// Starts writing an artifact; `declared` (if any) is checked when the writer finishes.
    pub fn writer(&self, declared: Option<String>) -> Result<ArtifactWriter, ArtifactError> {
        let tmp = self.root.join("tmp").join(format!("{}-{}", std::process::id(), unique()));
        let file = std::fs::File::create(&tmp).map_err(|source| ArtifactError::Io { path: tmp.clone(), source })?;
        Ok(ArtifactWriter { tmp, file, hasher: blake3::Hasher::new(), size: 0, declared })
    }

    /// Moves a finished temporary file into place under its hash.
    fn commit(&self, w: ArtifactWriter) -> Result<(String, u64), ArtifactError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ArtifactError::Io { path, source }
        };
        let actual = w.hasher.finalize().to_hex().to_string();
        if let Some(declared) = &w.declared {
            if *declared != actual {
                let _ = std::fs::remove_file(&w.tmp);
                return Err(ArtifactError::HashMismatch { declared: declared.clone(), actual });
            }
        }
        w.file.sync_all().map_err(io(&w.tmp))?;
        let dest = self.path(&actual)?;
        let dir = dest.parent().expect("artifact paths have a parent");
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        std::fs::rename(&w.tmp, &dest).map_err(io(&dest))?;
        Ok((actual, w.size))
    }

    /// Stores bytes already in memory.
    pub fn put(&self, bytes: &[u8]) -> Result<(String, u64), ArtifactError> {
        let mut w = self.writer(None)?;
        w.write(bytes)?;
        w.finish(self)
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An artifact being received chunk by chunk.
pub struct ArtifactWriter {
    tmp: PathBuf,
    file: std::fs::File,
    hasher: blake3::Hasher,
    size: u64,
    declared: Option<String>,
}

impl ArtifactWriter {
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), ArtifactError> {
        self.hasher.update(chunk);
        self.size += chunk.len() as u64;
        self.file.write_all(chunk).map_err(|source| ArtifactError::Io { path: self.tmp.clone(), source })
    }

    /// Returns the hash and size once the content is in place.
    pub fn finish(self, store: &ArtifactStore) -> Result<(String, u64), ArtifactError> {
        store.commit(self)
    }
}

impl Drop for ArtifactWriter {
    fn drop(&mut self) {
        // After a successful commit the temporary name no longer exists; this only cleans up aborts.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_by_hash_and_checks_declared_hash() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        let (hash, size) = store.put(b"hello").unwrap();
        assert_eq!(hash, blake3::hash(b"hello").to_hex().to_string());
        assert_eq!(size, 5);
        assert_eq!(std::fs::read(store.path(&hash).unwrap()).unwrap(), b"hello");
        let mut w = store.writer(Some(hash.clone())).unwrap();
        w.write(b"hellO").unwrap();
        assert!(matches!(w.finish(&store), Err(ArtifactError::HashMismatch { .. })));
        assert_eq!(std::fs::read_dir(dir.path().join("tmp")).unwrap().count(), 0, "no temporary files left");
    }

    #[test]
    fn rejects_names_that_are_not_hashes() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArtifactStore::open(dir.path()).unwrap();
        assert!(store.path("../../etc/passwd").is_err());
        assert!(!store.contains("00"));
    }
}
