//! The set of techniques a binary was built with, looked up by job kind.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::Technique;

/// Techniques by kind. The coordinator uses it to validate and version jobs, the worker to run them.
#[derive(Clone, Default)]
pub struct Registry {
    techniques: BTreeMap<&'static str, Arc<dyn Technique>>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a technique; a second one of the same kind is a programming error.
    pub fn with(mut self, technique: impl Technique + 'static) -> Self {
        let kind = technique.kind();
        let previous = self.techniques.insert(kind, Arc::new(technique));
        assert!(previous.is_none(), "technique kind `{kind}` registered twice");
        self
    }

    pub fn get(&self, kind: &str) -> Option<&Arc<dyn Technique>> {
        self.techniques.get(kind)
    }

    pub fn kinds(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.techniques.keys().copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Technique>> {
        self.techniques.values()
    }
}
