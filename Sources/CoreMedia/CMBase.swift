// Scalar types from CMBase.h used throughout Core Media.

/// A count of items (samples, entries): a signed long, as in CMBase.h.
public typealias CMItemCount = Int
/// An index of an item.
public typealias CMItemIndex = Int

/// A track's persistent identifier within its asset (`AVAssetTrack.trackID`).
public typealias CMPersistentTrackID = Int32
/// The invalid track ID.
public let kCMPersistentTrackID_Invalid: CMPersistentTrackID = 0
