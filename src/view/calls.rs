//! `CallNames`: call id → its tool's name, as the run totals remember them
//! to name a failed result. Every time-travel checkpoint clones the totals'
//! folder, and the names grow to thousands: copied whole, each checkpoint
//! would copy every id and name (allocations and memory by the checkpoint).
//! So the names are a book written in order behind `Rc`, shared by the
//! clones, each of which reads only the entries written before it was made
//! and its own. Only the one whose entries are the book's last writes into
//! it; any other (a state of time travel folding on from an older
//! checkpoint) keeps the names it sets beside it, few, until they are
//! enough to be worth a book of its own.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Debug, Clone, Default)]
struct Book {
    /// Id → its latest entry, whoever wrote it.
    latest: HashMap<String, u32>,
    /// In the order written: the tool's name and the id's entry before it.
    entries: Vec<(Rc<str>, Option<u32>)>,
}

impl Book {
    fn write(&mut self, id: &str, name: Rc<str>) {
        let at = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
        match self.latest.get_mut(id) {
            Some(latest) => self.entries.push((name, Some(std::mem::replace(latest, at)))),
            None => {
                self.entries.push((name, None));
                self.latest.insert(id.to_owned(), at);
            }
        }
    }

    /// The name of `id`'s latest entry within the first `read`: it, else
    /// the one before it that is (a later one is another clone's).
    fn name(&self, id: &str, read: usize) -> Option<&Rc<str>> {
        let mut at = self.latest.get(id).copied()?;
        loop {
            let (name, before) = self.entries.get(at as usize)?;
            if (at as usize) < read {
                return Some(name);
            }
            at = (*before)?;
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct CallNames {
    book: Rc<RefCell<Book>>,
    /// How many of the book's first entries are this one's.
    read: usize,
    /// Set while another clone writes the book; wins over it.
    beside: Book,
    /// How many distinct ids they all name.
    distinct: usize,
}

impl CallNames {
    /// The name set last for `id`.
    pub fn get(&self, id: &str) -> Option<Rc<str>> {
        let beside = self.beside.name(id, usize::MAX);
        beside.or(self.book.borrow().name(id, self.read)).cloned()
    }

    /// How many distinct ids have a name.
    pub fn len(&self) -> usize {
        self.distinct
    }

    /// Sets `id`'s name.
    pub fn set(&mut self, id: &str, name: &str) {
        // Names set again and again (a hostile log) would grow the book
        // past its ids, and names beside it make each clone copy them: a
        // book of its own holds each id once.
        let rewritten = self.read >= self.distinct.saturating_mul(2).saturating_add(64);
        let beside = self.beside.entries.len();
        if rewritten || beside >= (self.distinct / 4).saturating_add(64) {
            self.copy_own();
        }
        let before = self.get(id);
        if before.as_deref() == Some(name) {
            return;
        }
        self.distinct = self.distinct.saturating_add(usize::from(before.is_none()));
        let mut book = self.book.borrow_mut();
        if !self.beside.entries.is_empty() || book.entries.len() != self.read {
            self.beside.write(id, Rc::from(name));
            return;
        }
        book.write(id, Rc::from(name));
        self.read = book.entries.len();
    }

    /// Moves to a book of its own holding the names this one reads.
    fn copy_own(&mut self) {
        let mut own = Book::default();
        {
            let book = self.book.borrow();
            for id in book.latest.keys().filter(|id| !self.beside.latest.contains_key(*id)) {
                if let Some(name) = book.name(id, self.read) {
                    own.write(id, Rc::clone(name));
                }
            }
        }
        for id in self.beside.latest.keys() {
            if let Some(name) = self.beside.name(id, usize::MAX) {
                own.write(id, Rc::clone(name));
            }
        }
        self.beside = Book::default();
        self.read = own.entries.len();
        self.book = Rc::new(RefCell::new(own));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(calls: &CallNames, id: &str) -> Option<String> {
        calls.get(id).map(|n| n.to_string())
    }

    #[test]
    fn a_clone_shares_the_book_and_reads_only_its_own_names() {
        let mut calls = CallNames::default();
        for i in 0..1000 {
            calls.set(&format!("c{i}"), "read");
        }
        calls.set("c5", "write");
        calls.set("c5", "write");
        let copy = calls.clone();
        assert!(Rc::ptr_eq(&calls.book, &copy.book), "a clone copies no name");
        assert_eq!((calls.len(), calls.book.borrow().entries.len()), (1000, 1001));

        calls.set("c5", "run");
        calls.set("new", "run");
        assert_eq!(name(&calls, "c5").as_deref(), Some("run"));
        assert_eq!(name(&copy, "c5").as_deref(), Some("write"), "the clone's own name");
        assert_eq!(name(&copy, "new"), None);
        assert_eq!((calls.len(), copy.len()), (1001, 1000));

        let mut back = copy.clone();
        back.set("c7", "grep");
        assert!(Rc::ptr_eq(&back.book, &calls.book), "not the book's last: beside it");
        assert_eq!(back.beside.entries.len(), 1);
        assert_eq!(name(&back, "c5").as_deref(), Some("write"));
        assert_eq!(name(&back, "c7").as_deref(), Some("grep"));
        assert_eq!(name(&back, "new"), None);
        assert_eq!(name(&calls, "c7").as_deref(), Some("read"), "the others keep theirs");
        assert_eq!(name(&copy, "c7").as_deref(), Some("read"));
        assert_eq!(back.len(), 1000);
        back.set("c7", "read");
        back.set("more", "grep");
        assert_eq!((back.len(), name(&back, "c7").as_deref()), (1001, Some("read")));

        for i in 0..400 {
            back.set(&format!("c{i}"), "many");
        }
        assert!(!Rc::ptr_eq(&back.book, &calls.book), "many beside it: a book of its own");
        assert!(back.beside.entries.len() < 1001 / 4 + 64);
        assert_eq!(back.len(), 1001);
        assert_eq!(name(&back, "c0").as_deref(), Some("many"));
        assert_eq!(name(&back, "c500").as_deref(), Some("read"));
        assert_eq!(name(&back, "more").as_deref(), Some("grep"));
        assert_eq!(name(&calls, "c0").as_deref(), Some("read"), "the others keep theirs");
    }

    #[test]
    fn names_set_again_and_again_keep_the_book_to_its_ids() {
        let mut calls = CallNames::default();
        for i in 0..10_000 {
            calls.set(&format!("c{}", i % 10), if i % 2 == 0 { "a" } else { "b" });
        }
        assert_eq!(calls.len(), 10);
        assert!(calls.book.borrow().entries.len() <= 84, "{}", calls.book.borrow().entries.len());
        assert_eq!(name(&calls, "c9").as_deref(), Some("b"));
        assert_eq!(name(&calls, "c0").as_deref(), Some("a"));
    }
}
