//! The caps on open connections, in all and per client, and which
//! connection makes room for another when they are reached: so that one
//! client, or a crowd of addresses, cannot take every place, and a client
//! reconnecting fast is not refused by its own connections it has
//! already left.
//!
//! A connection that has never sent a whole request head is the cheapest
//! to close: nobody waits for an answer on it, and only a client that
//! means to hold a place keeps one silent for long. So when every place
//! is taken, one of those goes first (the oldest, whoever holds it), and
//! a connection with a request under way is never closed to make room.
//! Clients are also counted by network (an IPv4 /24, an IPv6 /48) once
//! a network holds more places than one client may: a crowd of
//! addresses from one network (a /55 or a /48 is easy to come by) then
//! counts as one heavy client, and loses places first.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// The open connections, in all and per client.
pub(super) struct Slots {
    pub(super) max_total: usize,
    max_per_client: usize,
    open: Mutex<OpenConnections>,
}

#[derive(Default)]
struct OpenConnections {
    total: usize,
    /// Numbers connections in the order they were opened.
    next_id: u64,
    /// Each client's connections, oldest first.
    per_client: HashMap<IpAddr, BTreeMap<u64, Arc<Held>>>,
    /// Each network's connections ([`network_of`]), oldest first, with
    /// their client.
    per_network: HashMap<IpAddr, BTreeMap<u64, IpAddr>>,
    /// Connections that had sent no whole request head when last looked
    /// at, oldest first; one that has since is dropped from here when
    /// found.
    silent: BTreeMap<u64, IpAddr>,
}

/// What the accept loop shares with one connection's task.
#[derive(Default)]
pub(super) struct Held {
    /// Requests whose answers are not yet sent: 0 when idle.
    under_way: AtomicUsize,
    /// Whether it has sent a whole request head.
    heard: AtomicBool,
    /// Whether it has answered a request: a client reconnecting at its
    /// cap may have closed such an idle one already.
    answered: AtomicBool,
    /// Told to close to make room for another connection.
    pub(super) close: Notify,
}

impl Held {
    fn idle(&self) -> bool {
        self.under_way.load(Ordering::SeqCst) == 0
    }

    fn silent(&self) -> bool {
        !self.heard.load(Ordering::SeqCst)
    }

    fn answered_and_idle(&self) -> bool {
        self.idle() && self.answered.load(Ordering::SeqCst)
    }
}

/// Who holds connections, as the total cap weighs them: a client, or a
/// whole network once it holds more places than one client may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Holder {
    Client(IpAddr),
    Network(IpAddr),
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Client(ip) => write!(f, "{ip}"),
            Holder::Network(net @ IpAddr::V4(_)) => write!(f, "{net}/24"),
            Holder::Network(net @ IpAddr::V6(_)) => write!(f, "{net}/48"),
        }
    }
}

/// One open connection; dropping it frees its place.
pub(super) struct Slot {
    slots: Arc<Slots>,
    client: IpAddr,
    id: u64,
    pub(super) held: Arc<Held>,
}

/// A connection not taken, and whose.
#[derive(Debug, PartialEq)]
pub(super) struct Refusal {
    pub(super) client: IpAddr,
    /// The client holds as many as it may, all busy (else: all places are
    /// taken, none silent, and no one holding two more than this client
    /// has one idle).
    pub(super) at_own_cap: bool,
}

impl Slots {
    pub(super) fn new(max_total: usize, max_per_client: usize) -> Self {
        Slots {
            max_total,
            max_per_client,
            open: Mutex::new(OpenConnections::default()),
        }
    }

    /// A place for one more connection from `ip`, and who held the
    /// connection closed to make room, if one was.
    ///
    /// A client at its own cap gets its oldest connection that has
    /// answered and is idle closed (one it may have closed itself
    /// already, whose end the server has not seen yet: a client
    /// reconnecting fast was refused otherwise), and is refused when it
    /// has none (a new connection that has not sent its request yet is
    /// not given up for another of the same client). When every place
    /// is taken:
    ///
    /// 1. the heaviest holder (client, or crowded network), if it holds
    ///    at least two more than this one's, loses its oldest silent
    ///    connection, else its oldest idle one: so a few addresses, or a
    ///    crowd from one network, never lock everyone else out;
    /// 2. else the oldest connection that has never sent a whole request
    ///    head goes, whoever holds it: only a squatter keeps one silent
    ///    for long, and the newest (a real client's, about to speak) is
    ///    the last to go;
    /// 3. else this one is refused. A connection with a request under way
    ///    (its body being read, its answer being made or sent) is never
    ///    closed to make room.
    pub(super) fn take(slots: &Arc<Slots>, ip: IpAddr) -> Result<(Slot, Option<Holder>), Refusal> {
        let client = client_of(ip);
        let mut open = slots.open.lock().unwrap_or_else(|e| e.into_inner());
        let from_client = open.per_client.get(&client).map_or(0, BTreeMap::len);
        let mut closed = None;
        if from_client >= slots.max_per_client {
            let Some((id, _)) = open.first_of(Holder::Client(client), Held::answered_and_idle)
            else {
                return Err(Refusal {
                    client,
                    at_own_cap: true,
                });
            };
            open.close(id, client);
            closed = Some(Holder::Client(client));
        } else if open.total >= slots.max_total {
            let Some(holder) = open.make_room(client, slots.max_per_client) else {
                return Err(Refusal {
                    client,
                    at_own_cap: false,
                });
            };
            closed = Some(holder);
        }
        let id = open.next_id;
        open.next_id += 1;
        open.total += 1;
        let held = Arc::new(Held::default());
        open.per_client
            .entry(client)
            .or_default()
            .insert(id, Arc::clone(&held));
        open.per_network
            .entry(network_of(client))
            .or_default()
            .insert(id, client);
        open.silent.insert(id, client);
        let slot = Slot {
            slots: Arc::clone(slots),
            client,
            id,
            held,
        };
        Ok((slot, closed))
    }

    /// How many are open, and who holds the most with its count.
    pub(super) fn census(&self) -> (usize, Option<(Holder, usize)>) {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        (open.total, open.heaviest(self.max_per_client))
    }
}

impl OpenConnections {
    /// Whether `network` holds more places than one client may.
    fn crowded(&self, network: IpAddr, crowd: usize) -> bool {
        self.per_network
            .get(&network)
            .is_some_and(|held| held.len() > crowd)
    }

    /// What `client` weighs: its own connections, or its network's when
    /// that is crowded.
    fn weight(&self, client: IpAddr, crowd: usize) -> usize {
        let network = network_of(client);
        if self.crowded(network, crowd) {
            self.per_network.get(&network).map_or(0, BTreeMap::len)
        } else {
            self.per_client.get(&client).map_or(0, BTreeMap::len)
        }
    }

    /// The holder with the most connections: each client of an
    /// uncrowded network, and each crowded network as one.
    fn heaviest(&self, crowd: usize) -> Option<(Holder, usize)> {
        let clients = self
            .per_client
            .iter()
            .filter(|(client, _)| !self.crowded(network_of(**client), crowd))
            .map(|(client, held)| (Holder::Client(*client), held.len()));
        let networks = self
            .per_network
            .iter()
            .filter(|(_, held)| held.len() > crowd)
            .map(|(network, held)| (Holder::Network(*network), held.len()));
        clients.chain(networks).max_by_key(|(_, count)| *count)
    }

    /// The oldest connection of `holder` that `pick` takes, and its
    /// client.
    fn first_of(&self, holder: Holder, pick: impl Fn(&Held) -> bool) -> Option<(u64, IpAddr)> {
        match holder {
            Holder::Client(client) => self
                .per_client
                .get(&client)?
                .iter()
                .find(|(_, conn)| pick(conn))
                .map(|(id, _)| (*id, client)),
            Holder::Network(network) => self
                .per_network
                .get(&network)?
                .iter()
                .find(|(id, client)| {
                    self.per_client
                        .get(client)
                        .and_then(|held| held.get(id))
                        .is_some_and(|conn| pick(conn))
                })
                .map(|(id, client)| (*id, *client)),
        }
    }

    /// Closes a connection to make room for one from `client` (rules 1
    /// and 2 of [`Slots::take`]): who held it, if one could go.
    fn make_room(&mut self, client: IpAddr, crowd: usize) -> Option<Holder> {
        let own = self.weight(client, crowd);
        if let Some((heaviest, count)) = self.heaviest(crowd) {
            let victim = self
                .first_of(heaviest, |conn| conn.idle() && conn.silent())
                .or_else(|| self.first_of(heaviest, Held::idle));
            if let (true, Some((id, victim))) = (count > own + 1, victim) {
                self.close(id, victim);
                return Some(heaviest);
            }
        }
        while let Some((&id, &victim)) = self.silent.first_key_value() {
            let conn = self.per_client.get(&victim).and_then(|held| held.get(&id));
            if conn.is_some_and(|conn| conn.idle() && conn.silent()) {
                self.close(id, victim);
                return Some(Holder::Client(victim));
            }
            self.silent.remove(&id);
        }
        None
    }

    /// Tells connection `id` of `client` to close, and frees its place at
    /// once.
    fn close(&mut self, id: u64, client: IpAddr) {
        if let Some(conn) = self.forget(id, client) {
            // Kept if the task is not waiting yet: it closes when it does.
            conn.close.notify_one();
        }
    }

    /// Takes connection `id` of `client` off every count: it, if it was
    /// still counted.
    fn forget(&mut self, id: u64, client: IpAddr) -> Option<Arc<Held>> {
        let held = self.per_client.get_mut(&client)?;
        let conn = held.remove(&id)?;
        if held.is_empty() {
            self.per_client.remove(&client);
        }
        let network = network_of(client);
        if let Some(held) = self.per_network.get_mut(&network) {
            held.remove(&id);
            if held.is_empty() {
                self.per_network.remove(&network);
            }
        }
        self.silent.remove(&id);
        self.total -= 1;
        Some(conn)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        // A connection closed to make room was taken off already.
        open.forget(self.id, self.client);
    }
}

/// One request of a connection, from its head read until its answer's
/// body is sent (or dropped).
pub(super) struct RequestUnderWay(Arc<Held>);

impl RequestUnderWay {
    pub(super) fn new(held: &Arc<Held>) -> Self {
        held.under_way.fetch_add(1, Ordering::SeqCst);
        held.heard.store(true, Ordering::SeqCst);
        RequestUnderWay(Arc::clone(held))
    }
}

impl Drop for RequestUnderWay {
    fn drop(&mut self) {
        self.0.answered.store(true, Ordering::SeqCst);
        self.0.under_way.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Who a connection or request counts against, for every per-client
/// limit (connections here, uploads and submissions through
/// [`crate::web::guard::peer_ip`]): its IPv4 address, or the /64 network of an
/// IPv6 one, since one IPv6 client usually holds a whole /64 and could
/// otherwise take each place or token from another address.
pub(in crate::web) fn client_of(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
    }
}

/// The network a client ([`client_of`]) belongs to, which counts as one
/// holder once it holds more places than one client may: an IPv4 /24, an
/// IPv6 /48 (what a site, or a free tunnel broker, hands out).
fn network_of(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            IpAddr::V4(Ipv4Addr::new(a, b, c, 0))
        }
        IpAddr::V6(v6) => {
            let [a, b, c, ..] = v6.segments();
            IpAddr::V6(Ipv6Addr::new(a, b, c, 0, 0, 0, 0, 0))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::net::SocketAddr;
    use std::task::Context;

    use axum::body::Body;
    use axum::extract::{ConnectInfo, Request};

    use super::*;

    fn busy(slot: &Slot) -> RequestUnderWay {
        RequestUnderWay::new(&slot.held)
    }

    /// A connection that has sent a request and had its answer.
    fn answered(slot: &Slot) {
        drop(busy(slot));
    }

    fn closing(slot: &Slot) -> bool {
        // A stored notification completes at once.
        futures_now(slot.held.close.notified())
    }

    fn futures_now(future: impl Future<Output = ()>) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        future.as_mut().poll(&mut cx).is_ready()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_client_at_its_cap_loses_its_oldest_answered_idle_connection_or_is_refused() {
        let slots = Arc::new(Slots::new(10, 2));
        let a = ip("192.0.2.1");
        let (a1, _) = Slots::take(&slots, a).unwrap();
        let (a2, _) = Slots::take(&slots, a).unwrap();
        // Idle, but neither has answered yet: not given up for another.
        assert!(Slots::take(&slots, a).is_err(), "a third before any answer");
        answered(&a1);
        answered(&a2);
        let _under_way = (busy(&a1), busy(&a2));
        assert_eq!(
            Slots::take(&slots, a).err(),
            Some(Refusal {
                client: a,
                at_own_cap: true
            }),
            "a third while both are busy"
        );
        drop(_under_way);
        let (_a3, closed) = Slots::take(&slots, a).unwrap();
        assert_eq!(closed, Some(Holder::Client(a)));
        assert!(closing(&a1) && !closing(&a2), "the oldest idle one goes");
        assert_eq!(slots.census(), (2, Some((Holder::Client(a), 2))));
        drop(a1);
        assert_eq!(slots.census().0, 2, "its place was freed once only");
    }

    #[test]
    fn when_full_the_client_holding_most_makes_room_but_never_with_a_busy_one() {
        let slots = Arc::new(Slots::new(5, 5));
        let heavy = ip("192.0.2.1");
        let light = ip("198.51.100.2");
        let new = ip("203.0.113.3");
        let h: Vec<Slot> = (0..4)
            .map(|_| Slots::take(&slots, heavy).unwrap().0)
            .collect();
        let (l1, _) = Slots::take(&slots, light).unwrap();
        answered(&h[1]);
        let _under_way = (busy(&h[0]), busy(&h[2]), busy(&l1));
        // h[3] is silent, h[1] idle after an answer: the silent one first.
        let (n1, closed) = Slots::take(&slots, new).unwrap();
        assert_eq!(closed, Some(Holder::Client(heavy)));
        assert!(closing(&h[3]) && !closing(&h[1]), "its silent one");
        let (_n2, closed) = Slots::take(&slots, new).unwrap();
        assert_eq!(closed, Some(Holder::Client(heavy)));
        assert!(closing(&h[1]) && !closing(&h[0]), "then its idle one");
        // The heavy client's two left are busy, and so is everyone's but
        // n2, which is silent and the newest: it goes, whoever holds it.
        let _busy = busy(&n1);
        let (_l2, closed) = Slots::take(&slots, light).unwrap();
        assert_eq!(closed, Some(Holder::Client(new)));
        // All busy now: refused, nothing cut.
        let _l2_busy = busy(&_l2);
        for client in [new, light, heavy] {
            let at_own_cap = false;
            let refused = Some(Refusal { client, at_own_cap });
            assert_eq!(Slots::take(&slots, client).err(), refused);
        }
        assert!(!closing(&h[0]) && !closing(&h[2]) && !closing(&l1));
        assert_eq!(slots.census().0, 5);
        drop(h);
        assert_eq!(slots.census().0, 3, "only those still counted free a place");
    }

    #[test]
    fn when_full_the_oldest_silent_connection_goes_whoever_holds_it() {
        // One silent connection each from 8 addresses of 8 networks: no
        // one holds more than a newcomer would, yet newcomers get in.
        let slots = Arc::new(Slots::new(8, 4));
        let squatters: Vec<Slot> = (1..=8)
            .map(|n| Slots::take(&slots, ip(&format!("10.{n}.0.1"))).unwrap().0)
            .collect();
        let good = ip("192.0.2.7");
        let (g1, closed) = Slots::take(&slots, good).unwrap();
        assert_eq!(closed, Some(Holder::Client(ip("10.1.0.1"))));
        assert!(closing(&squatters[0]) && !closing(&squatters[1]));
        // A squatter coming back takes the next oldest silent one, not the
        // newcomer's, which is the newest.
        let (_back, closed) = Slots::take(&slots, ip("10.1.0.1")).unwrap();
        assert_eq!(closed, Some(Holder::Client(ip("10.2.0.1"))));
        assert!(!closing(&g1));
        // One that has spoken is not silent any more.
        let _asking = busy(&g1);
        let mut newcomers = Vec::new();
        for n in 3..=8 {
            let (slot, closed) = Slots::take(&slots, ip(&format!("10.{n}.0.9"))).unwrap();
            assert_eq!(closed, Some(Holder::Client(ip(&format!("10.{n}.0.1")))));
            newcomers.push(slot);
        }
        assert!(!closing(&g1));
    }

    #[test]
    fn a_crowded_network_counts_as_one_holder() {
        // 6 places; one client may hold 2: a /24 holding 3 is crowded.
        let slots = Arc::new(Slots::new(6, 2));
        let good = ip("192.0.2.1");
        let (g1, _) = Slots::take(&slots, good).unwrap();
        let (g2, _) = Slots::take(&slots, good).unwrap();
        answered(&g1);
        answered(&g2);
        // Four addresses of one /24, one idle connection each, all
        // answered: no single one is heavier than the good client.
        let crowd: Vec<Slot> = (1..=4)
            .map(|n| {
                let (slot, _) = Slots::take(&slots, ip(&format!("198.51.100.{n}"))).unwrap();
                answered(&slot);
                slot
            })
            .collect();
        let network = Holder::Network(ip("198.51.100.0"));
        assert_eq!(slots.census(), (6, Some((network, 4))));
        assert_eq!(network.to_string(), "198.51.100.0/24");
        let (_n, closed) = Slots::take(&slots, ip("203.0.113.5")).unwrap();
        assert_eq!(closed, Some(network), "the crowd gives the place");
        assert!(closing(&crowd[0]) && !closing(&g1) && !closing(&g2));
        // Without the /24, the crowd's 4 were each as light as a newcomer.
        let v6 = ip("2001:db8:aa:1200::1");
        assert_eq!(network_of(v6), ip("2001:db8:aa::"));
        assert_eq!(
            network_of(client_of(ip("2001:db8:aa:ff00::9"))),
            network_of(v6)
        );
        assert_eq!(
            Holder::Network(network_of(v6)).to_string(),
            "2001:db8:aa::/48"
        );
    }

    #[test]
    fn an_ipv6_client_is_its_64_network() {
        let one = ip("2001:db8:1:2::1");
        let other = ip("2001:db8:1:2:ffff::9");
        let elsewhere = ip("2001:db8:1:3::1");
        assert_eq!(client_of(one), client_of(other));
        assert_ne!(client_of(one), client_of(elsewhere));
        let mapped = ip("::ffff:192.0.2.1");
        assert_eq!(client_of(mapped), ip("192.0.2.1"));
    }

    #[test]
    fn the_rate_limits_count_an_ipv6_client_as_the_caps_do() {
        use crate::web::guard::{peer_ip, RateLimiter};
        let request = |ip: &str| {
            let mut request = Request::new(Body::empty());
            let addr = SocketAddr::new(ip.parse().unwrap(), 4000);
            request.extensions_mut().insert(ConnectInfo(addr));
            request
        };
        let limiter = RateLimiter::per_minute(1);
        assert!(limiter.check(peer_ip(&request("2001:db8:1:2::1"))).is_ok());
        assert!(
            limiter
                .check(peer_ip(&request("2001:db8:1:2::abcd")))
                .is_err(),
            "another address of the same /64 shares its bucket"
        );
        assert!(limiter.check(peer_ip(&request("2001:db8:1:3::1"))).is_ok());
    }
}
