// The menus of `avtool play`: a list drawn over the picture (Core Animation layers, as AV Kit's
// subtitle and chapter menus are popovers over the video), chosen with the keys or a click.
import AVFoundation
import Foundation
import QuartzCore

/// One list menu: a title, rows, the row that is current (checked) and the row highlighted.
@MainActor
final class PlayerMenu {
    enum Kind { case subtitles, audio, chapters }

    let kind: Kind
    let rows: [String]
    private(set) var highlighted: Int
    private let box = CALayer()
    private let band = CALayer()
    private var texts: [CATextLayer] = []
    private let current: Int?

    static let rowHeight: CGFloat = 26
    static let width: CGFloat = 300

    init(kind: Kind, title: String, rows: [String], current: Int?, in layer: CALayer) {
        self.kind = kind
        self.rows = rows
        self.current = current
        highlighted = current ?? 0
        box.backgroundColor = CGColor(red: 0.08, green: 0.08, blue: 0.08, alpha: 0.88)
        box.cornerRadius = 8
        band.backgroundColor = CGColor(red: 1, green: 1, blue: 1, alpha: 0.22)
        band.cornerRadius = 4
        box.addSublayer(band)
        for (i, text) in ([title] + rows).enumerated() {
            let t = CATextLayer()
            t.fontSize = i == 0 ? 13 : 15
            t.foregroundColor = i == 0 ? CGColor(red: 0.75, green: 0.75, blue: 0.75, alpha: 1) : CGColor(red: 1, green: 1, blue: 1, alpha: 1)
            t.string = i == 0 ? text.uppercased() : ((i - 1 == current ? "✓  " : "    ") + text)
            t.truncationMode = .end
            box.addSublayer(t)
            texts.append(t)
        }
        layer.addSublayer(box)
    }

    /// Lays the menu out above the control bar, at the right of a window of `size`.
    func layout(size: CGSize, bottom: CGFloat) {
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        defer { CATransaction.commit() }
        let visibleRows = max(1, min(rows.count, Int((bottom - 60) / Self.rowHeight) - 1))
        let first = min(max(0, highlighted - visibleRows / 2), max(0, rows.count - visibleRows))
        let height = CGFloat(visibleRows + 1) * Self.rowHeight + 12
        let width = min(Self.width, size.width - 24)
        box.frame = CGRect(x: size.width - width - 12, y: max(8, bottom - height - 8), width: width, height: height)
        for (i, t) in texts.enumerated() {
            if i == 0 {
                t.frame = CGRect(x: 12, y: 8, width: width - 24, height: Self.rowHeight)
                continue
            }
            let row = i - 1
            let slot = row - first
            t.isHidden = slot < 0 || slot >= visibleRows
            t.frame = CGRect(x: 12, y: 8 + CGFloat(slot + 1) * Self.rowHeight + 3, width: width - 24, height: Self.rowHeight)
        }
        band.frame = CGRect(x: 6, y: 8 + CGFloat(highlighted - first + 1) * Self.rowHeight, width: width - 12, height: Self.rowHeight)
    }

    func move(_ delta: Int) {
        highlighted = min(max(0, highlighted + delta), rows.count - 1)
    }

    /// The row a click at (x, y) (window pixels, top-left origin) is on; nil outside the rows.
    func row(atX x: Double, y: Double) -> Int? {
        let frame = box.frame
        guard frame.contains(CGPoint(x: x, y: y)) else { return nil }
        for (i, t) in texts.enumerated() where i > 0 && !t.isHidden {
            let rowFrame = t.frame.offsetBy(dx: frame.minX, dy: frame.minY - 3)
            if y >= rowFrame.minY && y < rowFrame.minY + Self.rowHeight { return i - 1 }
        }
        return nil
    }

    func close() {
        box.removeFromSuperlayer()
    }
}

/// The media choices a played item offers: its legible and audible options and its chapters.
struct PlayChoices {
    var subtitleGroup: AVMediaSelectionGroup?
    var audioGroup: AVMediaSelectionGroup?
    /// Chapters: title and start time.
    var chapters: [(title: String, start: CMTime)] = []

    /// Names shown for options instead of their display names (a side-car file's name).
    var names: [ObjectIdentifier: String] = [:]

    /// The choices of `asset` (the item's), with the chapters of `movie` (the file played,
    /// when the item's asset is a composition made of it).
    init(asset: AVAsset, movie: AVAsset? = nil) {
        subtitleGroup = asset.mediaSelectionGroup(forMediaCharacteristic: .legible)
        audioGroup = asset.mediaSelectionGroup(forMediaCharacteristic: .audible)
        let chaptered = movie ?? asset
        var groups = chaptered.chapterMetadataGroups(bestMatchingPreferredLanguages: Locale.preferredLanguages)
        if groups.isEmpty, let locale = chaptered.availableChapterLocales.first {
            groups = chaptered.chapterMetadataGroups(withTitleLocale: locale, containingItemsWithCommonKeys: nil)
        }
        chapters = groups.enumerated().map { i, group in
            let title = AVMetadataItem.metadataItems(from: group.items, filteredByIdentifier: .commonIdentifierTitle).first?.stringValue
            return (title ?? "Chapter \(i + 1)", group.timeRange.start)
        }
    }

    /// The name of an option in a menu: its display name, with the language tag when several
    /// options share a name.
    func name(_ option: AVMediaSelectionOption, in group: AVMediaSelectionGroup) -> String {
        if let name = names[ObjectIdentifier(option)] { return name }
        let name = option.displayName(with: Locale(identifier: "en"))
        let same = group.options.filter { $0.displayName(with: Locale(identifier: "en")) == name }.count
        guard same > 1, let index = group.options.firstIndex(where: { $0 === option }) else { return name }
        return "\(name) (\(index + 1))"
    }

    /// The chapter playing at `time`.
    func chapter(at time: CMTime) -> Int? {
        chapters.lastIndex { $0.start <= time + CMTime(value: 1, timescale: 100) }
    }
}
