// AVAuthorizationStatus: whether the app may capture a media type.

/// Whether the user allowed the app to capture a media type.
public enum AVAuthorizationStatus: Int, Sendable {
    /// The user has not been asked.
    case notDetermined = 0
    /// The app may not capture (policy).
    case restricted = 1
    /// The user refused.
    case denied = 2
    /// The app may capture.
    case authorized = 3
}
