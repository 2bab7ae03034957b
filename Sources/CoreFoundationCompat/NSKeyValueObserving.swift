// Key-value observation with Apple's Swift call shape: `object.observe(\.status, options: [.new])
// { object, change in … }` returning an `NSKeyValueObservation` that stops observing when it is
// invalidated or released.
//
// swift-corelibs-foundation has none of it (no NSKeyValueObservation, NSKeyValueObservingOptions,
// NSKeyValueObservedChange or NSKeyValueChange; no Objective-C runtime, so no automatic
// notification of `@objc dynamic` properties). Here the names are declared with Apple's
// signatures, and notification is explicit: a class of ours calls
// `KVORegistry.shared.didChange(self, \Class.property, old:)` after an observable property
// changed, on the thread that changed it (as Apple's KVO notifies on the changing thread), with
// none of its locks held. Only the properties that do so notify; docs/COMPATIBILITY.md lists them.
// A client's own class announces its changes with Apple's willChangeValue/didChangeValue (end of file).

// MARK: - Options, change kinds, changes

/// The values a change delivers (`.new`, `.old`), and when notifications are sent (`.initial`:
/// once immediately, before `observe` returns; `.prior`: accepted, but no notification is sent
/// before a change — our classes notify after the change only).
public struct NSKeyValueObservingOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The change carries the value after the change (`newValue`).
    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    /// The change carries the value before the change (`oldValue`).
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    /// A notification is sent immediately, before `observe` returns.
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    /// Notifications before each change as well as after (not sent here: see the type's comment).
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}

/// The kind of a change.
public enum NSKeyValueChange: UInt, Sendable {
    /// The value was replaced (every change our classes post).
    case setting = 1
    /// Objects were inserted into a to-many relationship.
    case insertion = 2
    /// Objects were removed from a to-many relationship.
    case removal = 3
    /// Objects in a to-many relationship were replaced.
    case replacement = 4
}

/// One change, as an observation's change handler receives it.
public struct NSKeyValueObservedChange<Value> {
    public typealias Kind = NSKeyValueChange
    /// What kind of change happened (`.setting` for every property our classes post).
    public let kind: Kind
    /// The value after the change; nil unless `.new` was among the options.
    public let newValue: Value?
    /// The value before the change; nil unless `.old` was among the options (and for the initial
    /// notification).
    public let oldValue: Value?
    /// The indexes of a to-many change; nil for a `.setting` change.
    public let indexes: IndexSet?
    /// Whether the notification was sent before the change (never here: `.prior` is not sent).
    public let isPrior: Bool

    init(kind: Kind, newValue: Value?, oldValue: Value?, indexes: IndexSet?, isPrior: Bool) {
        self.kind = kind
        self.newValue = newValue
        self.oldValue = oldValue
        self.indexes = indexes
        self.isPrior = isPrior
    }
}

extension NSKeyValueObservedChange: Sendable where Value: Sendable {}

// MARK: - The observation token

/// An observation started by `observe(_:options:changeHandler:)`. It stops when `invalidate()` is
/// called or when the token is released; once `invalidate()` has returned, the handler is not
/// called again (a call already running on another thread is waited for; the handler may
/// invalidate its own token). The token holds the observed object weakly.
public class NSKeyValueObservation: NSObject, @unchecked Sendable {
    private let observer: KVORegistry.Observer

    init(_ observer: KVORegistry.Observer) {
        self.observer = observer
        super.init()
    }

    /// Stops the observation. Called automatically when the observation is released.
    public func invalidate() {
        observer.invalidate()
    }

    deinit { invalidate() }
}

// MARK: - observe(_:options:changeHandler:)

/// The protocol through which `NSObject` and its subclasses get `observe(_:options:changeHandler:)`.
public protocol _KeyValueCodingAndObserving {}

extension NSObject: _KeyValueCodingAndObserving {}

extension _KeyValueCodingAndObserving {
    /// Observes the property at `keyPath`: `changeHandler` is called with the object and the
    /// change each time the property changes (and once before this method returns, with
    /// `.initial`). When the returned NSKeyValueObservation is deinited or invalidated, it stops
    /// observing.
    @preconcurrency
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: NSKeyValueObservingOptions = [],
        changeHandler: @escaping @Sendable (Self, NSKeyValueObservedChange<Value>) -> Void
    ) -> NSKeyValueObservation {
        let object = self as! NSObject
        let observer = KVORegistry.Observer(
            keyPath: keyPath,
            read: { ($0 as! Self)[keyPath: keyPath] },
            deliver: { object, old, new in
                let change = NSKeyValueObservedChange<Value>(
                    kind: .setting,
                    newValue: options.contains(.new) ? new as? Value : nil,
                    oldValue: options.contains(.old) ? old.flatMap { $0 as? Value } : nil,
                    indexes: nil, isPrior: false)
                changeHandler(object as! Self, change)
            })
        KVORegistry.shared.register(observer, on: object, initial: options.contains(.initial))
        return NSKeyValueObservation(observer)
    }
}

// MARK: - The registry our classes notify

/// Who observes what. Our classes call `didChange(_:_:old:)` after an observable property
/// changed; observers registered on that object for that key path are called, outside the
/// registry's lock.
///
/// Key paths are matched exactly — with one exception, because `\Sub.prop != \Base.prop`: an
/// observer whose key path is rooted at a subclass of the notifying key path's root (a client's
/// `class MyWriter: AVAssetWriter` observing `\.status`), with the same value type, re-reads its
/// value on each notification of its object and is called when the value differs from the last
/// one it saw (Equatable values compared with `==`, objects by identity, anything else always).
package final class KVORegistry: @unchecked Sendable {
    package static let shared = KVORegistry()

    private let lock = NSLock()
    private var slots: [ObjectIdentifier: Slot] = [:]

    /// The observers of one object. The object is held weakly and compared on every look-up: an
    /// ObjectIdentifier is reused once its object has gone.
    private struct Slot {
        weak var object: AnyObject?
        var observers: [Observer]
    }

    /// One `observe` call: its key path, how to read the value and how to call the handler.
    final class Observer: @unchecked Sendable {
        let keyPath: AnyKeyPath
        private let read: (AnyObject) -> Any
        private let deliver: (AnyObject, Any?, Any) -> Void
        /// Held while the handler runs and while invalidating: after `invalidate()` returns, no
        /// handler call is running or will start. Recursive, so a handler may invalidate its own
        /// observation (or change the object again).
        private let callLock = NSRecursiveLock()
        private var isValid = true
        /// The value the handler last saw (or the value when observing began).
        private var last: Any?
        /// The observed object's identifier, to leave the registry.
        private var objectID: ObjectIdentifier?
        /// The value read by `willChangeValue`, the old value of the matching `didChangeValue`.
        private var before: Any?

        init(keyPath: AnyKeyPath, read: @escaping (AnyObject) -> Any, deliver: @escaping (AnyObject, Any?, Any) -> Void) {
            self.keyPath = keyPath
            self.read = read
            self.deliver = deliver
        }

        /// Joins `object`'s observers, and sends the initial notification when asked, before a
        /// change on another thread can be delivered.
        fileprivate func start(on object: AnyObject, registry: KVORegistry, initial: Bool) {
            callLock.lock()
            defer { callLock.unlock() }
            objectID = ObjectIdentifier(object)
            registry.add(self, to: object)
            let value = read(object)
            last = value
            if initial { deliver(object, nil, value) }
        }

        /// Calls the handler for a change of `object` (`old` is the value before it, when the
        /// notifier knows it). With `onlyIfChanged` (a subclass-rooted key path), the handler is
        /// called only when the value differs from the last one seen, which is then the old value.
        fileprivate func changed(_ object: AnyObject, old: Any?, onlyIfChanged: Bool) {
            callLock.lock()
            defer { callLock.unlock() }
            guard isValid else { return }
            let value = read(object)
            let previous = onlyIfChanged ? last : old
            if onlyIfChanged, let previous, !KVORegistry.differ(previous, value) { return }
            last = value
            deliver(object, previous, value)
        }

        /// The value type of the observed key path.
        var valueType: Any.Type { type(of: keyPath).valueType }
        /// The root type of the observed key path.
        var rootType: Any.Type { type(of: keyPath).rootType }

        /// Remembers the value before a change announced by `willChangeValue`.
        fileprivate func snapshot(_ object: AnyObject) {
            callLock.lock()
            defer { callLock.unlock() }
            guard isValid else { return }
            before = read(object)
        }

        /// Calls the handler after a change announced by `didChangeValue` when the value differs
        /// from the one before it (the snapshot, else the last one seen), which is the old value.
        fileprivate func changedAfterAnnouncement(_ object: AnyObject) {
            callLock.lock()
            defer { callLock.unlock() }
            guard isValid else { return }
            let previous = before ?? last
            before = nil
            let value = read(object)
            if let previous, !KVORegistry.differ(previous, value) { return }
            last = value
            deliver(object, previous, value)
        }

        func invalidate() {
            callLock.lock()
            let id: ObjectIdentifier? = isValid ? objectID : nil
            isValid = false
            callLock.unlock()
            if let id { KVORegistry.shared.remove(self, from: id) }
        }
    }

    func register(_ observer: Observer, on object: AnyObject, initial: Bool) {
        observer.start(on: object, registry: self, initial: initial)
    }

    private func add(_ observer: Observer, to object: AnyObject) {
        let id = ObjectIdentifier(object)
        lock.withLock {
            if var slot = slots[id], slot.object === object {
                slot.observers.append(observer)
                slots[id] = slot
            } else {
                slots[id] = Slot(object: object, observers: [observer])
            }
        }
    }

    private func remove(_ observer: Observer, from id: ObjectIdentifier) {
        lock.withLock {
            guard var slot = slots[id] else { return }
            slot.observers.removeAll { $0 === observer }
            slots[id] = slot.observers.isEmpty ? nil : slot
        }
    }

    /// Tells the observers of `object`'s `keyPath` that it changed from `old`. Call after the
    /// change, with no lock of the object held (handlers read the new value through the object).
    package func didChange<Root: AnyObject, Value>(_ object: Root, _ keyPath: KeyPath<Root, Value>, old: Value) {
        let notified: AnyKeyPath = keyPath
        let targets: [(Observer, exact: Bool)] = lock.withLock {
            guard let slot = slots[ObjectIdentifier(object)], slot.object === object else { return [] }
            return slot.observers.compactMap { observer in
                if observer.keyPath == notified { return (observer, true) }
                let observed = type(of: observer.keyPath)
                guard observed.valueType == Value.self, observed.rootType != Root.self,
                      KVORegistry.isType(observed.rootType, subclassOf: Root.self) else { return nil }
                return (observer, false)
            }
        }
        let oldValue: Any = old
        for (observer, exact) in targets {
            observer.changed(object, old: exact ? oldValue : nil, onlyIfChanged: !exact)
        }
    }

    /// The observers of `object` a manual change notification (`willChangeValue`/`didChangeValue`)
    /// concerns: those whose key path `matches`, among those rooted at a type `object` is.
    private func observers(of object: AnyObject, where matches: (Observer) -> Bool) -> [Observer] {
        lock.withLock {
            guard let slot = slots[ObjectIdentifier(object)], slot.object === object else { return [] }
            return slot.observers.filter(matches)
        }
    }

    /// `willChangeValue(forKey:)`/`(for:)`: each concerned observer remembers the value now.
    func willChange(_ object: AnyObject, where matches: (Observer) -> Bool) {
        for observer in observers(of: object, where: matches) { observer.snapshot(object) }
    }

    /// `didChangeValue(forKey:)`/`(for:)`: each concerned observer whose value differs from the
    /// one before the change is called.
    func didChange(_ object: AnyObject, where matches: (Observer) -> Bool) {
        for observer in observers(of: object, where: matches) { observer.changedAfterAnnouncement(object) }
    }

    /// Whether an observer may be observing the property `key` of `object`. Swift on Linux has no
    /// names for key paths to class properties, so the key is matched through the object's
    /// reflection: a stored property named `key` concerns the observers of a value of its type;
    /// a key reflection does not find (a computed property) concerns every observer of the
    /// object, each called only if its value changed.
    static func matcher(for object: AnyObject, key: String) -> (Observer) -> Bool {
        var mirror: Mirror? = Mirror(reflecting: object)
        var stored: Any.Type?
        while let current = mirror, stored == nil {
            if let child = current.children.first(where: { $0.label == key }) {
                stored = type(of: child.value)
            }
            mirror = current.superclassMirror
        }
        guard let stored else { return { _ in true } }
        return { observer in
            observer.valueType == stored || (observer.valueType is AnyClass && stored is AnyClass)
        }
    }

    private static func isType<Base>(_ type: Any.Type, subclassOf base: Base.Type) -> Bool {
        type is Base.Type
    }

    /// Whether two values of an observed property differ.
    static func differ(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? any Equatable { return !a.isEqualForObservation(b) }
        if type(of: a) is AnyClass, type(of: b) is AnyClass { return (a as AnyObject) !== (b as AnyObject) }
        return true
    }
}

fileprivate extension Equatable {
    func isEqualForObservation(_ other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

// MARK: - Manual change notification

extension NSObject {
    /// Announces that the value of the property `key` is about to change. Observers of it (through
    /// `observe(_:options:changeHandler:)`) remember its value now; the matching
    /// `didChangeValue(forKey:)` calls those whose value then differs, with that value as old.
    public func willChangeValue(forKey key: String) {
        KVORegistry.shared.willChange(self, where: KVORegistry.matcher(for: self, key: key))
    }

    /// Announces that the value of the property `key` has changed: its observers whose value
    /// differs from the one before (at `willChangeValue(forKey:)`, else the last one they saw)
    /// are called, on this thread.
    public func didChangeValue(forKey key: String) {
        KVORegistry.shared.didChange(self, where: KVORegistry.matcher(for: self, key: key))
    }
}

extension _KeyValueCodingAndObserving {
    /// Announces that the property at `keyPath` is about to change (see `willChangeValue(forKey:)`).
    public func willChangeValue<Value>(for keyPath: __owned KeyPath<Self, Value>) {
        let observed: AnyKeyPath = keyPath
        KVORegistry.shared.willChange(self as AnyObject) { $0.keyPath == observed }
    }

    /// Announces that the property at `keyPath` has changed: its observers whose value differs
    /// from the one before are called, on this thread.
    public func didChangeValue<Value>(for keyPath: __owned KeyPath<Self, Value>) {
        let observed: AnyKeyPath = keyPath
        KVORegistry.shared.didChange(self as AnyObject) { $0.keyPath == observed }
    }
}

