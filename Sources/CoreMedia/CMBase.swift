// Scalar types from CMBase.h used throughout Core Media.

/// A count of items (samples, entries): a signed long, as in CMBase.h.
public typealias CMItemCount = Int
/// An index of an item.
public typealias CMItemIndex = Int
