
Bheads.head.biasJ(}>>BNdјЁ3TїPDП=<f>їеќѕ_>зsяѕLЃF?СШ›ѕ