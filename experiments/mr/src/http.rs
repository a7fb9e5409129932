//! A query-based system over HTTP, as a spec's `execution` block declares it: GET the URL with the
//! test's parameters as the query string, take the items at a JSON pointer and their ids.

use std::time::Duration;

use crate::execute::{QueryFailure, System};
use crate::spec::Execution;

pub struct HttpSystem {
    agent: ureq::Agent,
    url: String,
    items: String,
    item_id: String,
}

impl HttpSystem {
    /// `base` replaces `{base}` in the declared URL (e.g. `http://127.0.0.1:8080`).
    pub fn new(exec: &Execution, base: &str, timeout: Duration) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        HttpSystem {
            agent,
            url: exec.url.replace("{base}", base.trim_end_matches('/')),
            items: exec.items.clone(),
            item_id: exec.item_id.clone(),
        }
    }
}

impl System for HttpSystem {
    fn query(&mut self, params: &[(String, String)]) -> Result<Vec<String>, QueryFailure> {
        let pairs = params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let mut resp = self
            .agent
            .get(&self.url)
            .query_pairs(pairs)
            .call()
            .map_err(|e| QueryFailure::Error(format!("GET {}: {e}", self.url)))?;
        let status = resp.status().as_u16();
        let body = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| QueryFailure::Error(format!("GET {}: reading the body: {e}", self.url)))?;
        let shown = || body.chars().take(200).collect::<String>();
        match status {
            200..=299 => {}
            400..=499 => return Err(QueryFailure::Refused(format!("HTTP {status}: {}", shown()))),
            _ => return Err(QueryFailure::Error(format!("HTTP {status}: {}", shown()))),
        }
        let json: serde_json::Value = serde_json::from_str(&body)
            .map_err(|e| QueryFailure::Error(format!("response is not JSON ({e}): {}", shown())))?;
        let items = json
            .pointer(&self.items)
            .and_then(|v| v.as_array())
            .ok_or_else(|| QueryFailure::Error(format!("no array at JSON pointer {:?}", self.items)))?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item.pointer(&self.item_id) {
                Some(serde_json::Value::String(s)) => Ok(s.clone()),
                Some(v) => Ok(v.to_string()),
                None => Err(QueryFailure::Error(format!(
                    "item {i} has nothing at JSON pointer {:?}",
                    self.item_id
                ))),
            })
            .collect()
    }
}
