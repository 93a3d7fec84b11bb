 B;encoder.layers.encoder_layer_0.self_attention.out_proj.biasJ€·=¶?VÀ±0¸>6Ã¿XØ¾çy?¼Xœ¿YN”>±&”?Õµè¾d9±?\*@áf€?º’¾C»¿žô¿¾î­æ>·Êâ?I»ª¿ÒêÀ½5lœ¿é1@`.‹=$S“¿w•—?|Ù?kñ®¿7Ç¿ÍB¿9°î¿iâÑ>Äƒ
¿