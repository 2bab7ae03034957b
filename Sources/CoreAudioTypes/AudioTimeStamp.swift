// AudioTimeStamp and SMPTETime: a moment in several time bases at once (CoreAudioTypes.h).

/// SMPTE time types.
public struct SMPTETimeType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let type24 = SMPTETimeType(rawValue: 0)
    public static let type25 = SMPTETimeType(rawValue: 1)
    public static let type30Drop = SMPTETimeType(rawValue: 2)
    public static let type30 = SMPTETimeType(rawValue: 3)
    public static let type2997 = SMPTETimeType(rawValue: 4)
    public static let type2997Drop = SMPTETimeType(rawValue: 5)
    public static let type60 = SMPTETimeType(rawValue: 6)
    public static let type5994 = SMPTETimeType(rawValue: 7)
    public static let type60Drop = SMPTETimeType(rawValue: 8)
    public static let type5994Drop = SMPTETimeType(rawValue: 9)
    public static let type50 = SMPTETimeType(rawValue: 10)
    public static let type2398 = SMPTETimeType(rawValue: 11)
}

/// SMPTE time flags.
public struct SMPTETimeFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let unknown = SMPTETimeFlags([])
    public static let valid = SMPTETimeFlags(rawValue: 1 << 0)
    public static let running = SMPTETimeFlags(rawValue: 1 << 1)
}

/// A SMPTE time.
public struct SMPTETime: Sendable, Equatable {
    public var mSubframes: Int16
    public var mSubframeDivisor: Int16
    public var mCounter: UInt32
    public var mType: SMPTETimeType
    public var mFlags: SMPTETimeFlags
    public var mHours: Int16
    public var mMinutes: Int16
    public var mSeconds: Int16
    public var mFrames: Int16

    public init() {
        self.init(mSubframes: 0, mSubframeDivisor: 0, mCounter: 0, mType: .type24, mFlags: [], mHours: 0, mMinutes: 0, mSeconds: 0, mFrames: 0)
    }

    public init(mSubframes: Int16, mSubframeDivisor: Int16, mCounter: UInt32, mType: SMPTETimeType, mFlags: SMPTETimeFlags,
                mHours: Int16, mMinutes: Int16, mSeconds: Int16, mFrames: Int16) {
        self.mSubframes = mSubframes
        self.mSubframeDivisor = mSubframeDivisor
        self.mCounter = mCounter
        self.mType = mType
        self.mFlags = mFlags
        self.mHours = mHours
        self.mMinutes = mMinutes
        self.mSeconds = mSeconds
        self.mFrames = mFrames
    }
}

/// Which fields of an AudioTimeStamp are valid.
public struct AudioTimeStampFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let sampleTimeValid = AudioTimeStampFlags(rawValue: 1 << 0)
    public static let hostTimeValid = AudioTimeStampFlags(rawValue: 1 << 1)
    public static let rateScalarValid = AudioTimeStampFlags(rawValue: 1 << 2)
    public static let wordClockTimeValid = AudioTimeStampFlags(rawValue: 1 << 3)
    public static let sMPTETimeValid = AudioTimeStampFlags(rawValue: 1 << 4)
    public static let sampleHostTimeValid: AudioTimeStampFlags = [.sampleTimeValid, .hostTimeValid]
}

/// A moment as a sample time, a host time, a rate scalar, a word clock time and a SMPTE time;
/// `mFlags` says which are valid.
public struct AudioTimeStamp: Sendable, Equatable {
    public var mSampleTime: Float64
    public var mHostTime: UInt64
    public var mRateScalar: Float64
    public var mWordClockTime: UInt64
    public var mSMPTETime: SMPTETime
    public var mFlags: AudioTimeStampFlags
    public var mReserved: UInt32

    public init() {
        self.init(mSampleTime: 0, mHostTime: 0, mRateScalar: 0, mWordClockTime: 0, mSMPTETime: SMPTETime(), mFlags: [], mReserved: 0)
    }

    public init(mSampleTime: Float64, mHostTime: UInt64, mRateScalar: Float64, mWordClockTime: UInt64, mSMPTETime: SMPTETime,
                mFlags: AudioTimeStampFlags, mReserved: UInt32) {
        self.mSampleTime = mSampleTime
        self.mHostTime = mHostTime
        self.mRateScalar = mRateScalar
        self.mWordClockTime = mWordClockTime
        self.mSMPTETime = mSMPTETime
        self.mFlags = mFlags
        self.mReserved = mReserved
    }
}
