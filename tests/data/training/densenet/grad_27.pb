B-features.denseblock2.denselayer2.norm2.weightJ@°íÛ»g?©¹‹4R»Z¡#:"ğ
<±1˜¼œ_»Mòÿ¼şĞè;«;yŞ$»ç5·ºŸÄ²<z<<TE}<šê;