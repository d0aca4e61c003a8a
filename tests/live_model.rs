//! Model-based test of the replay store: thousands of random sequences of
//! append / advance clock / trim / replay / subscribe / read / close over a
//! few sessions, checked step by step against a small reference model that
//! keeps every event ever appended and applies live-replay.md literally.

mod common;

use std::collections::{HashMap, VecDeque};

use agent_replay::live::*;
use agent_replay::units::{Millis, Position, Revision};
use common::Rng;

const INC: &str = "model";
const SESSIONS: [&str; 3] = ["a", "b:with:colons", "c"];

#[derive(Default)]
struct MSession {
    /// (revision, appended_at) of every event ever appended; position = index + 1.
    all: Vec<(u64, u64)>,
    /// Index of the oldest retained event.
    first: usize,
    max_turn: u64,
    revision: u64,
}

struct MSub {
    session: String,
    queue: VecDeque<(u64, u64)>,
    dropped: u64,
    delivered: (u64, u64),
    closed: bool,
}

struct Model {
    max: usize,
    age: u64,
    sessions: HashMap<String, MSession>,
    subs: Vec<MSub>,
}

#[derive(Debug, PartialEq)]
enum Out {
    Replayed(Vec<(u64, u64)>),
    Gap(GapReason),
    Malformed,
}

impl Model {
    fn trim(&mut self, session: &str, now: u64) {
        if let Some(s) = self.sessions.get_mut(session) {
            while s.all.len() - s.first > self.max {
                s.first += 1;
            }
            while s.first < s.all.len() && now - s.all[s.first].1 > self.age {
                s.first += 1;
            }
        }
    }

    fn append(&mut self, session: &str, turn: u64, given: Option<u64>, now: u64) -> (u64, u64) {
        let s = self.sessions.entry(session.to_string()).or_default();
        s.max_turn = s.max_turn.max(turn);
        s.revision = given.unwrap_or(s.max_turn);
        s.all.push((s.revision, now));
        let event = (s.revision, s.all.len() as u64);
        for sub in self.subs.iter_mut().filter(|x| x.session == session && !x.closed) {
            sub.queue.push_back(event);
            if sub.queue.len() > self.max {
                sub.queue.pop_front();
                sub.dropped += 1;
            }
        }
        self.trim(session, now);
        event
    }

    /// The gap rules in order; Ok(p) means "replay after p".
    fn check(&mut self, inc: &str, p: u64, session: &str, now: u64) -> Result<u64, GapReason> {
        if inc != INC {
            return Err(GapReason::Unavailable);
        }
        self.trim(session, now);
        let Some(s) = self.sessions.get(session) else {
            return if p == 0 { Ok(0) } else { Err(GapReason::Unavailable) };
        };
        let tail = s.all.len() as u64;
        if p > tail {
            return Err(GapReason::Unavailable);
        }
        if s.first == s.all.len() {
            return if p < tail { Err(GapReason::Trimmed) } else { Ok(p) };
        }
        if p + 1 < s.first as u64 + 1 {
            return Err(GapReason::Trimmed);
        }
        Ok(p)
    }

    fn after(&self, session: &str, p: u64) -> Vec<(u64, u64)> {
        let Some(s) = self.sessions.get(session) else { return Vec::new() };
        (p as usize..s.all.len()).map(|i| (s.all[i].0, i as u64 + 1)).collect()
    }
}

fn out_of(replay: Result<Replay, CursorError>) -> Out {
    match replay {
        Err(_) => Out::Malformed,
        Ok(Replay::Gap(g)) => Out::Gap(g),
        Ok(Replay::Replayed(events)) => {
            Out::Replayed(events.iter().map(|e| (e.revision.0, e.position.0)).collect())
        }
    }
}

fn run(seed: u64, steps: usize) {
    let mut rng = Rng(seed);
    let max = 1 + rng.below(6) as usize;
    let age = 1 + rng.below(400);
    let mut store = ReplayStore::new(
        StoreConfig { max_events_per_session: max, max_age_ms: age, ..Default::default() },
        INC,
    )
    .unwrap();
    let mut model = Model { max, age, sessions: HashMap::new(), subs: Vec::new() };
    let mut subs: Vec<Subscription> = Vec::new();
    let mut now = 0u64;
    for step in 0..steps {
        let session = SESSIONS[rng.below(3) as usize];
        let ctx = format!("seed {seed} step {step} (max {max}, age {age})");
        match rng.below(100) {
            0..=34 => {
                let turn = rng.below(20);
                let given = (rng.below(5) == 0).then(|| rng.below(100));
                let json = format!(r#"{{"kind":"page_in","turn":{turn},"entry_count":1}}"#);
                let got = store.append(session, &json, given.map(Revision), Millis(now)).unwrap();
                let want = model.append(session, turn, given, now);
                assert_eq!((got.revision.0, got.position.0), want, "{ctx}: append");
                assert_eq!(&*got.json, json);
            }
            35..=49 => now += rng.below(age * 2 / 3 + 1),
            50..=54 => {
                store.trim_session(session, Millis(now));
                model.trim(session, now);
            }
            55..=84 => {
                let tail = model.sessions.get(session).map_or(0, |s| s.all.len() as u64);
                let p = rng.below(tail + 3);
                let inc = if rng.below(20) == 0 { "other" } else { INC };
                let rev = rng.below(50);
                let malformed = rng.below(25) == 0;
                let cursor = if malformed {
                    format!("arc1:{inc}:0{rev}:{p}:{session}")
                } else {
                    format!("arc1:{inc}:{rev}:{p}:{session}")
                };
                let want = if malformed {
                    Out::Malformed
                } else {
                    match model.check(inc, p, session, now) {
                        Err(g) => Out::Gap(g),
                        Ok(p) => Out::Replayed(model.after(session, p)),
                    }
                };
                if rng.below(3) > 0 {
                    assert_eq!(
                        out_of(store.replay_after(&cursor, Millis(now))),
                        want,
                        "{ctx}: replay {cursor}"
                    );
                } else {
                    let got = store.subscribe(&cursor, Millis(now));
                    match (got, want) {
                        (Err(_), Out::Malformed) => {}
                        (Ok(SubscribeResult::Gap(g)), Out::Gap(w)) => assert_eq!(g, w, "{ctx}"),
                        (Ok(SubscribeResult::Subscribed(sub)), Out::Replayed(events)) => {
                            model.sessions.entry(session.to_string()).or_default();
                            let mut queue: VecDeque<(u64, u64)> = events.into_iter().collect();
                            while queue.len() > max {
                                queue.pop_front();
                            }
                            model.subs.push(MSub {
                                session: session.into(),
                                queue,
                                dropped: 0,
                                delivered: (rev, p),
                                closed: false,
                            });
                            subs.push(sub);
                        }
                        (got, want) => panic!("{ctx}: subscribe {cursor}: {got:?} vs {want:?}"),
                    }
                }
            }
            85..=97 if !subs.is_empty() => {
                let i = rng.below(subs.len() as u64) as usize;
                let m = &mut model.subs[i];
                let want = if m.closed {
                    None
                } else if m.dropped > 0 {
                    let (r, p) = m.delivered;
                    Some(SubscriptionItem::Lagged {
                        dropped: std::mem::take(&mut m.dropped),
                        resume_cursor: format!("arc1:{INC}:{r}:{p}:{}", m.session),
                    })
                } else {
                    m.queue.pop_front().map(|e| {
                        m.delivered = e;
                        SubscriptionItem::Event(ObservedEvent {
                            session_id: m.session.as_str().into(),
                            revision: Revision(e.0),
                            position: Position(e.1),
                            json: "".into(),
                        })
                    })
                };
                let got = subs[i].try_next();
                match (got, want) {
                    (Some(SubscriptionItem::Event(g)), Some(SubscriptionItem::Event(w))) => {
                        assert_eq!(
                            (&*g.session_id, g.revision, g.position),
                            (&*w.session_id, w.revision, w.position),
                            "{ctx}: read"
                        );
                    }
                    (g, w) => assert_eq!(g, w, "{ctx}: read"),
                }
            }
            98..=99 if !subs.is_empty() => {
                let i = rng.below(subs.len() as u64) as usize;
                subs[i].close();
                model.subs[i].closed = true;
                model.subs[i].queue.clear();
                model.subs[i].dropped = 0;
            }
            _ => {}
        }
        for s in SESSIONS {
            let want = model.sessions.get(s).map_or((0, 0), |m| (m.revision, m.all.len() as u64));
            assert_eq!(
                store.current_cursor(s, None),
                format!("arc1:{INC}:{}:{}:{s}", want.0, want.1),
                "{ctx}: cursor"
            );
        }
    }
}

#[test]
fn the_store_matches_the_reference_model() {
    for seed in 1..=300u64 {
        run(seed * 0x9E37_79B9 + 1, 400);
    }
}
