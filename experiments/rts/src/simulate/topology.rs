//! Services, their APIs and the static call graph of version 1.
//!
//! Services sit in layers that fix how deep they are (their *tier*): gateways (tier 0, whose APIs
//! are the entry APIs users call), business services in three tiers (1–3), basic services shared by
//! many callers (tier 4: auth, user, config, ...) and storage (tier 5). An API only calls APIs of
//! deeper tiers, mostly the next one, which keeps call trees mostly 2–5 deep as in the Alibaba
//! trace analyses (Luo et al., SoCC 2021); the optional back-edges are the one exception and make
//! loops. Callees are chosen by Zipf popularity within a tier, so a few services are shared by many
//! callers, and the number of calls per API is heavy-tailed (discrete Pareto).

use std::collections::BTreeSet;
use std::ops::Range;

use rand::Rng;
use serde::Serialize;

use super::calltree::{CallGraph, CallKind};
use super::profile::Profile;
use super::sample::{heavy_tail, zipf_weights, Weighted};

/// An API's index in [`Topology::apis`] (and in [`super::System::apis`]).
pub type ApiId = u32;

/// The deepest tier (storage).
pub const MAX_TIER: u8 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Gateway,
    Business,
    Basic,
    Storage,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    pub name: String,
    pub layer: Layer,
    /// Depth class: 0 gateway, 1–3 business, 4 basic, 5 storage. Calls go to deeper tiers.
    pub tier: u8,
    /// This service's APIs, a contiguous range of [`ApiId`]s.
    pub apis: Range<ApiId>,
    /// Relative weight of this service as a callee within its tier.
    pub popularity: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Api {
    /// Index of the owning service.
    pub service: u32,
    pub name: String,
}

/// The services and APIs of a system, with the callee picker the call graph is drawn from.
#[derive(Debug, Clone)]
pub struct Topology {
    pub services: Vec<Service>,
    pub apis: Vec<Api>,
    /// Per tier: its services and their popularity.
    by_tier: Vec<(Vec<u32>, Option<Weighted>)>,
}

const GATEWAY_WORDS: &[&str] = &["gateway", "web-ui", "mobile-bff", "admin-portal", "open-api", "partner-api"];
const BUSINESS_WORDS: &[&str] = &[
    "order", "payment", "ticket", "travel", "route", "seat", "train", "cart", "inventory", "shipping",
    "coupon", "price", "search", "recommend", "review", "refund", "rebook", "notification", "consign",
    "assurance", "food", "delivery", "account", "member", "promotion", "checkout", "invoice", "booking",
    "schedule", "catalog", "product", "warehouse", "logistics", "settlement", "risk", "contract",
];
const BASIC_WORDS: &[&str] = &[
    "auth", "user", "config", "station", "contacts", "security", "verification-code", "id-generator",
    "geo", "message-queue", "file", "audit", "rate-limiter", "session", "news",
];
const STORAGE_WORDS: &[&str] = &["mysql-proxy", "redis-cache", "mongo", "elasticsearch", "object-store", "hbase", "kafka"];
const VERBS: &[&str] = &[
    "get", "query", "create", "update", "delete", "list", "check", "search", "cancel", "confirm", "pay",
    "refresh", "validate", "calculate", "notify", "sync", "export", "import", "lock", "unlock",
];
const STORAGE_VERBS: &[&str] = &["select", "insert", "update", "delete", "get", "set", "scan"];

/// Relative chance that a caller in tier `row` calls a service in tier `column`: mostly the next
/// tier, basic services from anywhere, storage rarely straight from the top.
const TIER_JUMP: [[f64; 6]; 6] = [
    [0.0, 1.0, 0.3, 0.1, 0.25, 0.02],
    [0.0, 0.0, 0.8, 0.4, 0.8, 0.3],
    [0.0, 0.0, 0.0, 0.5, 0.9, 0.5],
    [0.0, 0.0, 0.0, 0.0, 1.0, 0.7],
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    [0.0; 6],
];

/// Share of calls that are always made; the rest are optional (made or not depending on the
/// request), which is what gives an entry API its call-graph variants.
const REQUIRED_SHARE: f64 = 0.65;
/// Share of optional calls made by default (i.e. in the dominant variant).
const DEFAULT_ON_SHARE: f64 = 0.5;

/// Number of services per layer: 5% gateways (at least one), 25% basic, 10% storage, the rest
/// (at least one when there are two services or more) business.
fn layer_sizes(n: usize) -> [usize; 4] {
    if n == 1 {
        return [1, 0, 0, 0];
    }
    let share = |f: f64| (f * n as f64).round() as usize;
    let gateways = share(0.05).max(1);
    let rest = n - gateways;
    let storage = share(0.10).min(rest);
    let basic = share(0.25).min(rest - storage);
    let mut sizes = [gateways, rest - basic - storage, basic, storage];
    if sizes[1] == 0 {
        let donor = if sizes[2] > 0 { 2 } else { 3 };
        sizes[donor] -= 1;
        sizes[1] = 1;
    }
    sizes
}

/// `order-2` → `Order2`: the resource part of an API name.
fn camel(word: &str) -> String {
    word.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |c| c.to_ascii_uppercase().to_string() + chars.as_str())
        })
        .collect()
}

/// `base`, or `base2`, `base3`, ... whichever is not taken yet.
fn unique(base: String, taken: &mut BTreeSet<String>) -> String {
    let mut name = base.clone();
    let mut k = 2;
    while taken.contains(&name) {
        name = format!("{base}{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

impl Topology {
    /// Draws the services and their APIs; gateway APIs get their names from [`Topology::call_graph`].
    pub fn generate(profile: &Profile, rng: &mut impl Rng) -> Topology {
        let layers = [
            (Layer::Gateway, GATEWAY_WORDS),
            (Layer::Business, BUSINESS_WORDS),
            (Layer::Basic, BASIC_WORDS),
            (Layer::Storage, STORAGE_WORDS),
        ];
        let mut services = Vec::with_capacity(profile.services);
        let mut apis = Vec::new();
        for ((layer, words), size) in layers.into_iter().zip(layer_sizes(profile.services)) {
            let popularity = zipf_weights(size, 0.9);
            for (k, weight) in popularity.into_iter().enumerate() {
                let word = words[k % words.len()];
                let name = if k < words.len() { word.to_string() } else { format!("{word}-{}", k / words.len() + 1) };
                let tier = match layer {
                    Layer::Gateway => 0,
                    Layer::Business => 1 + (3 * k / size) as u8,
                    Layer::Basic => 4,
                    Layer::Storage => MAX_TIER,
                };
                let count = match layer {
                    Layer::Gateway => 6 + heavy_tail(rng, 1.0, 30),
                    Layer::Business => 2 + heavy_tail(rng, 1.5, 10),
                    Layer::Basic => 2 + heavy_tail(rng, 1.5, 8),
                    Layer::Storage => 2 + heavy_tail(rng, 2.0, 3),
                };
                let first = apis.len() as ApiId;
                let mut taken = BTreeSet::new();
                let id = services.len() as u32;
                for _ in 0..count {
                    let base = match layer {
                        // Named by `call_graph`, after the service they call first.
                        Layer::Gateway => None,
                        Layer::Storage => Some(STORAGE_VERBS[rng.random_range(0..STORAGE_VERBS.len())].to_string()),
                        _ => Some(format!("{}{}", VERBS[rng.random_range(0..VERBS.len())], camel(word))),
                    };
                    let name = base.map(|b| unique(b, &mut taken)).unwrap_or_default();
                    apis.push(Api { service: id, name });
                }
                let range = first..apis.len() as ApiId;
                services.push(Service { name, layer, tier, apis: range, popularity: weight });
            }
        }
        let by_tier = (0..=MAX_TIER)
            .map(|tier| {
                let members: Vec<u32> = (0..services.len() as u32).filter(|&s| services[s as usize].tier == tier).collect();
                let weights: Vec<f64> = members.iter().map(|&s| services[s as usize].popularity).collect();
                (members, Weighted::new(&weights))
            })
            .collect();
        Topology { services, apis, by_tier }
    }

    pub fn tier_of(&self, api: ApiId) -> u8 {
        self.services[self.apis[api as usize].service as usize].tier
    }

    /// An API of a service in tier `tier`, the service by popularity, the API Zipf-like (the first
    /// APIs of a service are its busiest).
    fn api_in_tier(&self, rng: &mut impl Rng, tier: u8) -> Option<ApiId> {
        let (members, weights) = &self.by_tier[tier as usize];
        let service = &self.services[members[weights.as_ref()?.sample(rng)] as usize];
        let n = service.apis.len();
        let pick = Weighted::new(&zipf_weights(n, 1.0))?.sample(rng);
        Some(service.apis.start + pick as ApiId)
    }

    /// A callee for an API in tier `from`: a deeper tier (mostly the next one), then a service by
    /// popularity and one of its APIs.
    pub fn pick_callee(&self, rng: &mut impl Rng, from: u8) -> Option<ApiId> {
        let row = TIER_JUMP.get(from as usize)?;
        let weights: Vec<f64> =
            row.iter().enumerate().map(|(t, w)| if self.by_tier[t].1.is_some() { *w } else { 0.0 }).collect();
        let tier = Weighted::new(&weights)?.sample(rng) as u8;
        self.api_in_tier(rng, tier)
    }

    /// How many calls an API of `layer` makes: heavy-tailed, none for storage.
    fn fan_out(rng: &mut impl Rng, layer: Layer) -> usize {
        match layer {
            Layer::Gateway => 1 + heavy_tail(rng, 1.6, 7),
            Layer::Business if rng.random_bool(0.1) => 0,
            Layer::Business => 1 + heavy_tail(rng, 1.4, 11),
            Layer::Basic if rng.random_bool(0.75) => 0,
            Layer::Basic => 1 + heavy_tail(rng, 2.0, 2),
            Layer::Storage => 0,
        }
    }

    /// A call kind: required, or optional and on or off by default.
    pub fn call_kind(rng: &mut impl Rng) -> CallKind {
        if rng.random_bool(REQUIRED_SHARE) {
            CallKind::Required
        } else {
            CallKind::Optional { default_on: rng.random_bool(DEFAULT_ON_SHARE) }
        }
    }

    /// The call graph of version 1 (afterwards every service is reachable from a gateway); names
    /// the entry APIs after it.
    pub fn call_graph(&mut self, back_edge_rate: f64, rng: &mut impl Rng) -> CallGraph {
        let mut graph = CallGraph::new(self.apis.len());
        for api in 0..self.apis.len() as ApiId {
            let service = &self.services[self.apis[api as usize].service as usize];
            for i in 0..Self::fan_out(rng, service.layer) {
                let kind = if service.layer == Layer::Gateway && i == 0 { CallKind::Required } else { Self::call_kind(rng) };
                // A few tries for a callee this API does not call yet; small systems may have none.
                let target = (0..4)
                    .filter_map(|_| self.pick_callee(rng, service.tier))
                    .find(|t| !graph.calls(api).iter().any(|c| c.target == *t));
                if let Some(target) = target {
                    graph.add(api, target, kind, false);
                }
            }
        }
        self.connect(&mut graph, rng);
        if back_edge_rate > 0.0 {
            self.add_back_edges(&mut graph, back_edge_rate, rng);
        }
        self.name_entry_apis(&graph, rng);
        graph
    }

    /// Names each gateway API a verb plus the resource of the service it calls first
    /// (`gateway:getOrder` calls `order`), so that entry APIs read like routes.
    fn name_entry_apis(&mut self, graph: &CallGraph, rng: &mut impl Rng) {
        for service in self.services.iter().filter(|s| s.layer == Layer::Gateway) {
            let mut taken = BTreeSet::new();
            for api in service.apis.clone() {
                let resource = match graph.calls(api).first() {
                    Some(call) => self.services[self.apis[call.target as usize].service as usize].name.clone(),
                    None => BUSINESS_WORDS[rng.random_range(0..BUSINESS_WORDS.len())].to_string(),
                };
                let verb = VERBS[rng.random_range(0..VERBS.len())];
                self.apis[api as usize].name = unique(format!("{verb}{}", camel(&resource)), &mut taken);
            }
        }
    }

    /// Gives a share `rate` of the business and basic APIs that some business API calls a
    /// callback: an optional call (on by default with probability 0.15) to an API of one of their
    /// business callers' services — that service is on the path whenever the call comes from it,
    /// so the callback closes a loop (order → payment → order).
    fn add_back_edges(&self, graph: &mut CallGraph, rate: f64, rng: &mut impl Rng) {
        let mut callers: Vec<Vec<ApiId>> = vec![Vec::new(); self.apis.len()];
        for api in 0..self.apis.len() as ApiId {
            if self.tier_of(api) > 0 {
                for call in graph.calls(api) {
                    callers[call.target as usize].push(api);
                }
            }
        }
        for api in 0..self.apis.len() as ApiId {
            if callers[api as usize].is_empty() || self.tier_of(api) == MAX_TIER || !rng.random_bool(rate) {
                continue;
            }
            let caller = callers[api as usize][rng.random_range(0..callers[api as usize].len())];
            let owner = &self.services[self.apis[caller as usize].service as usize];
            let target = owner.apis.start + rng.random_range(0..owner.apis.len() as ApiId);
            if !graph.calls(api).iter().any(|c| c.target == target) {
                graph.add(api, target, CallKind::Optional { default_on: rng.random_bool(0.15) }, true);
            }
        }
    }

    /// Adds a required call to every service no gateway reaches, from a reached API of a
    /// shallower service, shallow services first (so the caller is itself reached).
    fn connect(&self, graph: &mut CallGraph, rng: &mut impl Rng) {
        let mut order: Vec<usize> = (0..self.services.len()).filter(|&s| self.services[s].tier > 0).collect();
        order.sort_by_key(|&s| self.services[s].tier);
        let mut reached = self.reached(graph);
        for s in order {
            let service = &self.services[s];
            if service.apis.clone().any(|a| reached[a as usize]) {
                continue;
            }
            let callers: Vec<ApiId> =
                (0..self.apis.len() as ApiId).filter(|&a| reached[a as usize] && self.tier_of(a) < service.tier).collect();
            if callers.is_empty() {
                continue;
            }
            let caller = callers[rng.random_range(0..callers.len())];
            let target = service.apis.start + rng.random_range(0..service.apis.len() as ApiId);
            graph.add(caller, target, CallKind::Required, false);
            reached = self.reached(graph);
        }
    }

    /// Which APIs some gateway API reaches over forward (non-back-edge) calls.
    fn reached(&self, graph: &CallGraph) -> Vec<bool> {
        let mut seen = vec![false; self.apis.len()];
        let mut stack: Vec<ApiId> =
            (0..self.apis.len() as ApiId).filter(|&a| self.tier_of(a) == 0).collect();
        for &a in &stack {
            seen[a as usize] = true;
        }
        while let Some(a) = stack.pop() {
            for call in graph.calls(a).iter().filter(|c| !c.back_edge) {
                if !std::mem::replace(&mut seen[call.target as usize], true) {
                    stack.push(call.target);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample::{stream, Purpose};
    use super::*;

    fn topology(services: usize, seed: u64) -> Topology {
        Topology::generate(&Profile::custom("t", services, 0, 1, 0), &mut stream(seed, Purpose::Topology, 0))
    }

    #[test]
    fn layers_split_the_services_and_names_are_unique() {
        assert_eq!(layer_sizes(1), [1, 0, 0, 0]);
        assert_eq!(layer_sizes(2), [1, 1, 0, 0]);
        assert_eq!(layer_sizes(61), [3, 37, 15, 6]);
        let mut t = topology(605, 1);
        t.call_graph(0.04, &mut stream(1, Purpose::Topology, 1));
        assert_eq!(t.services.len(), 605);
        let names: BTreeSet<&str> = t.services.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 605);
        for s in &t.services {
            let apis: BTreeSet<&str> = s.apis.clone().map(|a| t.apis[a as usize].name.as_str()).collect();
            assert_eq!(apis.len(), s.apis.len(), "{}", s.name);
            assert!(!s.apis.is_empty());
            assert!(s.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
            assert!(s.apis.clone().all(|a| t.apis[a as usize].name.chars().all(|c| c.is_ascii_alphanumeric())));
        }
    }

    #[test]
    fn calls_go_deeper_except_back_edges_and_every_service_is_reached() {
        for seed in 0..5 {
            let mut t = topology(120, seed);
            let g = t.call_graph(0.2, &mut stream(seed, Purpose::Topology, 1));
            let mut back = 0;
            for a in 0..t.apis.len() as ApiId {
                for c in g.calls(a) {
                    if c.back_edge {
                        back += 1;
                        assert!(t.tier_of(c.target) < t.tier_of(a) && t.tier_of(c.target) > 0);
                    } else {
                        assert!(t.tier_of(c.target) > t.tier_of(a));
                    }
                }
            }
            assert!(back > 0);
            let reached = t.reached(&g);
            for s in &t.services {
                assert!(s.apis.clone().any(|a| reached[a as usize]), "{} unreached", s.name);
            }
        }
    }

    #[test]
    fn a_few_services_are_called_by_many() {
        let mut t = topology(605, 3);
        let g = t.call_graph(0.04, &mut stream(3, Purpose::Topology, 1));
        let mut callers = vec![BTreeSet::new(); t.services.len()];
        for a in 0..t.apis.len() as ApiId {
            for c in g.calls(a) {
                callers[t.apis[c.target as usize].service as usize].insert(t.apis[a as usize].service);
            }
        }
        let mut counts: Vec<usize> = callers.iter().map(BTreeSet::len).collect();
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let median = counts[counts.len() / 2];
        assert!(counts[0] >= 10 * median.max(1), "top {} vs median {median}", counts[0]);
    }
}
