B-features.denseblock3.denselayer2.norm2.weightJ@[Ož;j|;ò +:Þ®…»Xt»®1Â;Ý²»¼Yá"»»’y¹	^ <î,4;>¢<
»aµ»^bý»