//! The order of a merged list, settled as kube-apiserver settles it: items the patch names
//! follow the patch's order (or its `$setElementOrder` list), items only the server had keep
//! their live order, and the two are interleaved by their positions in the live list.
//! So a container added by `kubectl patch` comes first, while `kubectl apply`'s
//! `$setElementOrder` keeps the manifest's order.

use serde_json::Value;

/// How two items are recognised as the same one.
#[derive(Debug, Clone, Copy)]
pub(super) enum Identity<'k> {
    /// Lists of objects: by the value of the merge key.
    MergeKey(&'k str),
    /// Lists of scalars: by value.
    Value,
}

impl Identity<'_> {
    fn of(self, item: &Value) -> Option<&Value> {
        match self {
            Identity::MergeKey(key) => item.get(key),
            Identity::Value => Some(item),
        }
    }

    /// Where `item` is in `order`.
    fn position(self, order: &[Value], item: &Value) -> Option<usize> {
        let wanted = self.of(item)?;
        order
            .iter()
            .position(|candidate| self.of(candidate) == Some(wanted))
    }
}

/// Splits `merged` into the items `reference` names and the others, each in `merged`'s order.
pub(super) fn partition(
    merged: Vec<Value>,
    reference: &[Value],
    identity: Identity<'_>,
) -> (Vec<Value>, Vec<Value>) {
    merged
        .into_iter()
        .partition(|item| identity.position(reference, item).is_some())
}

/// Sorts the `named` items by `named_order` and the `server_only` ones by `server_order`
/// (the live list), then interleaves them.
pub(super) fn normalize(
    mut named: Vec<Value>,
    mut server_only: Vec<Value>,
    named_order: &[Value],
    server_order: &[Value],
    identity: Identity<'_>,
) -> Vec<Value> {
    sort_by_order(&mut named, named_order, identity);
    sort_by_order(&mut server_only, server_order, identity);
    interleave(server_only, named, server_order, identity)
}

/// Stable; items `order` does not name go last.
fn sort_by_order(items: &mut [Value], order: &[Value], identity: Identity<'_>) {
    items.sort_by_key(|item| identity.position(order, item).unwrap_or(usize::MAX));
}

/// Takes the next server-only item only while the live list puts it before the next named
/// item; otherwise (including when either is not in the live list) the named item goes
/// first. Both inputs keep their relative order.
fn interleave(
    server_only: Vec<Value>,
    named: Vec<Value>,
    server_order: &[Value],
    identity: Identity<'_>,
) -> Vec<Value> {
    let mut result = Vec::with_capacity(server_only.len() + named.len());
    let mut server_only = server_only.into_iter().peekable();
    let mut named = named.into_iter().peekable();
    loop {
        let take_server_only = match (server_only.peek(), named.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(left), Some(right)) => matches!(
                (identity.position(server_order, left), identity.position(server_order, right)),
                (Some(l), Some(r)) if l < r
            ),
        };
        let next = if take_server_only {
            server_only.next()
        } else {
            named.next()
        };
        result.extend(next);
    }
    result
}
