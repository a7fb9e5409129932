//! Durable state behind a small trait: studies, jobs with their states and results, and an event log.
//!
//! The sled implementation keeps everything in one tree under prefixed keys, so that a job's new
//! state and the events describing it land in one atomic batch.

use std::path::Path;

use prost::Message;
use rigor_proto::{StoredJob, StoredStudy};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(#[from] sled::Error),
    #[error("corrupt record under key {key:?}: {source}")]
    Decode { key: String, source: prost::DecodeError },
    #[error("cannot open the database at {path}: {source}")]
    Open { path: String, source: sled::Error },
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// One atomic group of writes.
#[derive(Default)]
pub struct Writes {
    pub studies: Vec<StoredStudy>,
    pub jobs: Vec<StoredJob>,
    pub events: Vec<String>,
}

impl Writes {
    pub fn is_empty(&self) -> bool {
        self.studies.is_empty() && self.jobs.is_empty() && self.events.is_empty()
    }
}

/// What the coordinator needs from storage.
pub trait Store: Send + Sync + 'static {
    fn study(&self, name: &str) -> Result<Option<StoredStudy>>;
    fn studies(&self) -> Result<Vec<StoredStudy>>;
    fn job(&self, study: &str, id: &str) -> Result<Option<StoredJob>>;
    /// Every stored job of a study (of any generation), in key order.
    fn study_jobs<'a>(&'a self, study: &str) -> Box<dyn Iterator<Item = Result<StoredJob>> + 'a>;
    /// Applies all writes atomically (not yet durable: see [`Store::flush`]).
    fn apply(&self, writes: Writes) -> Result<()>;
    /// Makes every applied write durable.
    fn flush(&self) -> Result<()>;
    /// The event log, oldest first.
    fn events(&self) -> Result<Vec<String>>;
    /// A small artifact kept in the database (large ones are files: see `artifacts`).
    fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>>;
    fn has_blob(&self, hash: &str) -> Result<bool>;
    /// Stores small artifacts by hash (not yet durable: see [`Store::flush`]).
    fn put_blobs(&self, blobs: &[(String, Vec<u8>)]) -> Result<()>;
}

pub struct SledStore {
    db: sled::Db,
}

const STUDY: &[u8] = b"s/";
const JOB: &[u8] = b"j/";
const EVENT: &[u8] = b"e/";
const BLOB: &[u8] = b"b/";

fn blob_key(hash: &str) -> Vec<u8> {
    [BLOB, hash.as_bytes()].concat()
}

fn job_key(study: &str, id: &str) -> Vec<u8> {
    [JOB, study.as_bytes(), b"\0", id.as_bytes()].concat()
}

fn study_key(name: &str) -> Vec<u8> {
    [STUDY, name.as_bytes()].concat()
}

fn decode<M: Message + Default>(key: &[u8], bytes: &[u8]) -> Result<M> {
    M::decode(bytes).map_err(|source| StoreError::Decode { key: String::from_utf8_lossy(key).into_owned(), source })
}

impl SledStore {
    /// Opens (or creates) the database in `dir`. The page cache is bounded so that a
    /// million-job study fits the coordinator's memory budget.
    pub fn open(dir: &Path) -> Result<Self> {
        let db = sled::Config::new()
            .path(dir)
            .cache_capacity(128 << 20)
            .flush_every_ms(None)
            .open()
            .map_err(|source| StoreError::Open { path: dir.display().to_string(), source })?;
        Ok(SledStore { db })
    }

    /// A throw-away database for tests.
    pub fn temporary() -> Result<Self> {
        Ok(SledStore { db: sled::Config::new().temporary(true).open()? })
    }
}

impl Store for SledStore {
    fn study(&self, name: &str) -> Result<Option<StoredStudy>> {
        let key = study_key(name);
        self.db.get(&key)?.map(|v| decode(&key, &v)).transpose()
    }

    fn studies(&self) -> Result<Vec<StoredStudy>> {
        self.db.scan_prefix(STUDY).map(|kv| kv.map_err(StoreError::from).and_then(|(k, v)| decode(&k, &v))).collect()
    }

    fn job(&self, study: &str, id: &str) -> Result<Option<StoredJob>> {
        let key = job_key(study, id);
        self.db.get(&key)?.map(|v| decode(&key, &v)).transpose()
    }

    fn study_jobs<'a>(&'a self, study: &str) -> Box<dyn Iterator<Item = Result<StoredJob>> + 'a> {
        let prefix = [JOB, study.as_bytes(), b"\0"].concat();
        Box::new(self.db.scan_prefix(prefix).map(|kv| kv.map_err(StoreError::from).and_then(|(k, v)| decode(&k, &v))))
    }

    fn apply(&self, writes: Writes) -> Result<()> {
        let mut batch = sled::Batch::default();
        for s in &writes.studies {
            batch.insert(study_key(&s.name), s.encode_to_vec());
        }
        for j in &writes.jobs {
            let spec = j.spec.as_ref().expect("stored jobs carry their spec");
            batch.insert(job_key(&spec.study, &spec.job_id), j.encode_to_vec());
        }
        for e in &writes.events {
            let id = self.db.generate_id()?;
            batch.insert([EVENT, &id.to_be_bytes()].concat(), e.as_bytes());
        }
        self.db.apply_batch(batch)?;
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        self.db.flush()?;
        Ok(())
    }

    fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.db.get(blob_key(hash))?.map(|v| v.to_vec()))
    }

    fn has_blob(&self, hash: &str) -> Result<bool> {
        Ok(self.db.contains_key(blob_key(hash))?)
    }

    fn put_blobs(&self, blobs: &[(String, Vec<u8>)]) -> Result<()> {
        let mut batch = sled::Batch::default();
        for (hash, data) in blobs {
            batch.insert(blob_key(hash), data.as_slice());
        }
        self.db.apply_batch(batch)?;
        Ok(())
    }

    fn events(&self) -> Result<Vec<String>> {
        self.db
            .scan_prefix(EVENT)
            .map(|kv| kv.map(|(_, v)| String::from_utf8_lossy(&v).into_owned()).map_err(StoreError::from))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_proto::{JobSpec, JobState};

    fn job(study: &str, id: &str, state: JobState) -> StoredJob {
        StoredJob {
            spec: Some(JobSpec { job_id: id.into(), study: study.into(), ..Default::default() }),
            state: state as i32,
            ..Default::default()
        }
    }

    #[test]
    fn writes_survive_reopen_and_studies_do_not_mix() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = SledStore::open(dir.path()).unwrap();
            s.apply(Writes {
                studies: vec![StoredStudy { name: "a".into(), generation: 1, ..Default::default() }],
                jobs: vec![job("a", "1", JobState::Queued), job("a", "2", JobState::Done), job("ab", "3", JobState::Done)],
                events: vec!["submitted a".into()],
            })
            .unwrap();
            s.flush().unwrap();
        }
        let s = SledStore::open(dir.path()).unwrap();
        assert_eq!(s.study("a").unwrap().unwrap().generation, 1);
        assert!(s.study("b").unwrap().is_none());
        let ids: Vec<_> = s.study_jobs("a").map(|j| j.unwrap().spec.unwrap().job_id).collect();
        assert_eq!(ids, ["1", "2"]);
        assert_eq!(s.job("a", "2").unwrap().unwrap().state, JobState::Done as i32);
        assert_eq!(s.events().unwrap(), ["submitted a"]);
    }

    #[test]
    fn corrupt_record_is_an_error_not_a_panic() {
        let s = SledStore::temporary().unwrap();
        s.db.insert(job_key("a", "x"), &[0xff, 0xff, 0xff][..]).unwrap();
        assert!(matches!(s.job("a", "x"), Err(StoreError::Decode { .. })));
    }
}
