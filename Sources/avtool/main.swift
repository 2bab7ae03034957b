import AVFoundation
print("avtool")
