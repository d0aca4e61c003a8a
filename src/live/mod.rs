//! Live replay: session cursors, the bounded in-memory replay store with
//! its subscriptions, and the session handle (live-replay.md).

pub mod append_log;
pub mod cursor;
pub mod session;
pub mod store;
pub mod subscription;

pub use append_log::AppendLogReport;
pub use cursor::{CursorError, SessionCursor};
pub use session::{
    LiveReplayGap, Observation, ReplaySession, Restore, Resume, SentObservation, SessionItem,
    SessionSubscription,
};
pub use store::{
    AppendError, GapReason, ObservedEvent, Replay, ReplayStore, RestoreBase, StoreConfig,
    StoredEvent, SubscribeResult,
};
pub use subscription::{Subscription, SubscriptionItem};
