B+features.denseblock1.denselayer1.norm1.biasJ@*£=»êò; ò#:êZ¼ãY<E:ºPm¼ H¦»
±» ëº¶­¼y¼ºR»½=,»	õ;§˜¼