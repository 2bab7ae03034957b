import Testing
import ImageIO
