 B;encoder.layers.encoder_layer_1.self_attention.out_proj.biasJ€˜Ø¾>ì$n¿ça¾F]¸¾R ?~œ2?Ð¾!wº¾l
S½TÀ¼>7ù?L:€?°¥?(@¿y‡½$–Ý=|×‚¾J1‘¾ª2¥¿ù¡“>â9m¿Ë#Þ>BéÍ>d<¿è”‹?Ñ¼»?@`<™.?†ˆ¿&Í,ÀÈ%£?QÜ_>