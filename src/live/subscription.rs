//! Subscriptions: a bounded queue per subscriber, filled by the store on
//! append and drained by the consumer (`try_next`); waiting for the next
//! append is the host's business (js/live.js wakes its async iterators on
//! the appends it makes). A consumer that falls behind by more than the bound
//! loses the oldest undelivered events and is told so once (`Lagged`).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::cursor::format_cursor;
use super::store::ObservedEvent;
use crate::units::{Position, Revision};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubscriptionItem {
    Event(ObservedEvent),
    /// `dropped` events were lost; `resume_cursor` is the last delivered
    /// event's (or the subscription's starting) cursor.
    Lagged {
        dropped: u64,
        resume_cursor: String,
    },
}

#[derive(Debug)]
pub(crate) struct SubQueue {
    queue: VecDeque<ObservedEvent>,
    capacity: usize,
    dropped: u64,
    /// (revision, position) of the last event handed out, or of the cursor
    /// subscribed from: where a lagged consumer resumes.
    delivered: (Revision, Position),
    closed: bool,
}

impl SubQueue {
    pub(crate) fn new(
        capacity: usize,
        backlog: Vec<ObservedEvent>,
        from: (Revision, Position),
    ) -> Rc<RefCell<SubQueue>> {
        let mut queue = SubQueue {
            queue: VecDeque::new(),
            capacity,
            dropped: 0,
            delivered: from,
            closed: false,
        };
        for event in backlog {
            queue.push(event);
        }
        Rc::new(RefCell::new(queue))
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "`dropped` counts events appended one at a time: it cannot reach 2^64"
    )]
    fn push(&mut self, event: ObservedEvent) {
        self.queue.push_back(event);
        if self.queue.len() > self.capacity {
            self.queue.pop_front();
            self.dropped += 1;
        }
    }

    /// True while the consumer holds its `Subscription` and has not closed it.
    pub(crate) fn is_alive(queue: &Rc<RefCell<SubQueue>>) -> bool {
        Rc::strong_count(queue) > 1 && !queue.borrow().closed
    }

    /// Offers a new event; false when the subscriber is gone (closed, or its
    /// `Subscription` dropped), so the store forgets it.
    pub(crate) fn offer(queue: &Rc<RefCell<SubQueue>>, event: &ObservedEvent) -> bool {
        if Rc::strong_count(queue) == 1 {
            return false;
        }
        let mut q = queue.borrow_mut();
        if q.closed {
            return false;
        }
        q.push(event.clone());
        true
    }

    pub(crate) fn close(queue: &Rc<RefCell<SubQueue>>) {
        queue.borrow_mut().closed = true;
    }
}

/// A live subscription to one session. Ends when closed or when its store
/// is dropped.
#[derive(Debug)]
pub struct Subscription {
    queue: Rc<RefCell<SubQueue>>,
    incarnation: Rc<str>,
    session_id: Rc<str>,
}

impl Subscription {
    pub(crate) fn new(
        queue: Rc<RefCell<SubQueue>>,
        incarnation: Rc<str>,
        session_id: Rc<str>,
    ) -> Self {
        Subscription { queue, incarnation, session_id }
    }

    /// The next item if one is pending; `None` when nothing is (or it ended).
    pub fn try_next(&self) -> Option<SubscriptionItem> {
        let mut q = self.queue.borrow_mut();
        if q.dropped > 0 {
            let (revision, position) = q.delivered;
            let dropped = std::mem::take(&mut q.dropped);
            let resume_cursor =
                format_cursor(&self.incarnation, revision, position, &self.session_id);
            return Some(SubscriptionItem::Lagged { dropped, resume_cursor });
        }
        let event = q.queue.pop_front()?;
        q.delivered = (event.revision, event.position);
        Some(SubscriptionItem::Event(event))
    }

    /// True once closed (or its store dropped) with nothing left to read.
    pub fn is_ended(&self) -> bool {
        let q = self.queue.borrow();
        q.closed && q.queue.is_empty() && q.dropped == 0
    }

    /// Ends the subscription: pending items are discarded.
    pub fn close(&self) {
        let mut q = self.queue.borrow_mut();
        q.queue.clear();
        q.dropped = 0;
        drop(q);
        SubQueue::close(&self.queue);
    }

    /// The session subscribed to.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Undelivered items held (bounded by the store's maxEventsPerSession).
    pub fn pending(&self) -> usize {
        self.queue.borrow().queue.len()
    }
}
