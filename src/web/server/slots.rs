//! The caps on open connections, in all and per client, and which
//! connection makes room for another when they are reached: so that one
//! client cannot take every place, and a client reconnecting fast is not
//! refused by its own connections it has already left.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv6Addr};
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
}

/// What the accept loop shares with one connection's task.
#[derive(Default)]
pub(super) struct Held {
    /// Requests whose answers are not yet sent: 0 when idle.
    under_way: AtomicUsize,
    /// Whether it has answered a request: a client reconnecting at its
    /// cap may have closed such an idle one already.
    answered: AtomicBool,
    /// Told to close to make room for another connection.
    pub(super) close: Notify,
}

/// Which connection of a client may be closed for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Victim {
    /// Only one idle after answering a request (its client's own cap).
    AnsweredIdle,
    /// One idle, else the oldest (the total cap, for another client).
    IdleOrOldest,
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
    /// taken, and no client holds more than two more than this one).
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

    /// A place for one more connection from `ip`, and the client whose
    /// connection was closed to make room, if one was.
    ///
    /// A client at its own cap gets its oldest connection that has
    /// answered and is idle closed (one it may have closed itself
    /// already, whose end the server has not seen yet: a client
    /// reconnecting fast was refused otherwise), and is refused when it
    /// has none (a new connection that has not sent its request yet is
    /// not given up for another of the same client). When
    /// every place is taken, the client holding the most loses its oldest
    /// idle connection, or its oldest when none is idle, if it holds at
    /// least two more than this one: so a few addresses never lock
    /// everyone else out, and a new client always gets in unless everyone
    /// holds as few as it does.
    pub(super) fn take(slots: &Arc<Slots>, ip: IpAddr) -> Result<(Slot, Option<IpAddr>), Refusal> {
        let client = client_of(ip);
        let mut open = slots.open.lock().unwrap_or_else(|e| e.into_inner());
        let from_client = open.per_client.get(&client).map_or(0, BTreeMap::len);
        let mut closed = None;
        if from_client >= slots.max_per_client {
            if !open.close_oldest(client, Victim::AnsweredIdle) {
                return Err(Refusal {
                    client,
                    at_own_cap: true,
                });
            }
            closed = Some(client);
        } else if open.total >= slots.max_total {
            let heaviest = open
                .heaviest()
                .filter(|(_, count)| *count > from_client + 1);
            let Some((heaviest, _)) = heaviest else {
                return Err(Refusal {
                    client,
                    at_own_cap: false,
                });
            };
            open.close_oldest(heaviest, Victim::IdleOrOldest);
            closed = Some(heaviest);
        }
        let id = open.next_id;
        open.next_id += 1;
        open.total += 1;
        let held = Arc::new(Held::default());
        open.per_client
            .entry(client)
            .or_default()
            .insert(id, Arc::clone(&held));
        let slot = Slot {
            slots: Arc::clone(slots),
            client,
            id,
            held,
        };
        Ok((slot, closed))
    }

    /// How many are open, and the client holding the most with its count.
    pub(super) fn census(&self) -> (usize, Option<(IpAddr, usize)>) {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        (open.total, open.heaviest())
    }
}

impl OpenConnections {
    fn heaviest(&self) -> Option<(IpAddr, usize)> {
        self.per_client
            .iter()
            .map(|(client, held)| (*client, held.len()))
            .max_by_key(|(_, count)| *count)
    }

    /// Tells `client`'s oldest connection of the kind `victim` says to
    /// close, and frees its place at once: whether there was one.
    fn close_oldest(&mut self, client: IpAddr, victim: Victim) -> bool {
        let Some(held) = self.per_client.get_mut(&client) else {
            return false;
        };
        let idle = held
            .iter()
            .find(|(_, conn)| {
                conn.under_way.load(Ordering::SeqCst) == 0
                    && (victim == Victim::IdleOrOldest || conn.answered.load(Ordering::SeqCst))
            })
            .map(|(id, _)| *id);
        let oldest = held.keys().next().copied();
        let Some(id) = idle.or(oldest.filter(|_| victim == Victim::IdleOrOldest)) else {
            return false;
        };
        if let Some(conn) = held.remove(&id) {
            // Kept if the task is not waiting yet: it closes when it does.
            conn.close.notify_one();
            self.total -= 1;
        }
        if held.is_empty() {
            self.per_client.remove(&client);
        }
        true
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        // A connection closed to make room was taken off already.
        let Some(held) = open.per_client.get_mut(&self.client) else {
            return;
        };
        if held.remove(&self.id).is_none() {
            return;
        }
        if held.is_empty() {
            open.per_client.remove(&self.client);
        }
        open.total -= 1;
    }
}

/// One request of a connection, from its head read until its answer's
/// body is sent (or dropped).
pub(super) struct RequestUnderWay(Arc<Held>);

impl RequestUnderWay {
    pub(super) fn new(held: &Arc<Held>) -> Self {
        held.under_way.fetch_add(1, Ordering::SeqCst);
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

    #[test]
    fn a_client_at_its_cap_loses_its_oldest_answered_idle_connection_or_is_refused() {
        let slots = Arc::new(Slots::new(10, 2));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let (a1, _) = Slots::take(&slots, a).unwrap();
        let (a2, _) = Slots::take(&slots, a).unwrap();
        // Idle, but neither has answered yet: not given up for another.
        assert!(Slots::take(&slots, a).is_err(), "a third before any answer");
        drop((busy(&a1), busy(&a2)));
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
        assert_eq!(closed, Some(a));
        assert!(closing(&a1) && !closing(&a2), "the oldest idle one goes");
        assert_eq!(slots.census(), (2, Some((a, 2))));
        drop(a1);
        assert_eq!(slots.census().0, 2, "its place was freed once only");
    }

    #[test]
    fn when_full_the_client_holding_most_makes_room_for_a_new_one() {
        let slots = Arc::new(Slots::new(5, 5));
        let heavy: IpAddr = "192.0.2.1".parse().unwrap();
        let light: IpAddr = "192.0.2.2".parse().unwrap();
        let new: IpAddr = "192.0.2.3".parse().unwrap();
        let h: Vec<Slot> = (0..4)
            .map(|_| Slots::take(&slots, heavy).unwrap().0)
            .collect();
        let (l1, _) = Slots::take(&slots, light).unwrap();
        let _under_way = (busy(&h[0]), busy(&h[2]), busy(&h[3]), busy(&l1));
        let (n1, closed) = Slots::take(&slots, new).unwrap();
        assert_eq!(closed, Some(heavy));
        assert!(closing(&h[1]) && !closing(&h[0]), "its oldest idle one");
        // All of the heavy client's are busy now: its oldest goes.
        let (_n2, closed) = Slots::take(&slots, new).unwrap();
        assert_eq!(closed, Some(heavy));
        assert!(closing(&h[0]));
        // Holding 2 each, and 1: no one holds two more than another.
        let _busy = busy(&n1);
        for client in [new, light] {
            let at_own_cap = false;
            let refused = Some(Refusal { client, at_own_cap });
            assert_eq!(Slots::take(&slots, client).err(), refused);
        }
        assert_eq!(slots.census().0, 5);
        drop(h);
        assert_eq!(slots.census().0, 3, "only those still counted free a place");
    }

    #[test]
    fn an_ipv6_client_is_its_64_network() {
        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let other: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_of(one), client_of(other));
        assert_ne!(client_of(one), client_of(elsewhere));
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(client_of(mapped), "192.0.2.1".parse::<IpAddr>().unwrap());
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
